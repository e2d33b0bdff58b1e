import { describe, expect, it } from 'vitest';
import {
  isLooser,
  isTighter,
  isWithin,
  limitsProblems,
  NO_LIMITS,
  normalizePath,
  offerLimits,
  readOnly,
  sameLimits,
  summarizeEnforced,
  summarizeLimits,
  type LimitsEnforcement,
  type LimitsProfile,
} from './limits.js';

const fs = (read: string[], write: string[] = [], network: LimitsProfile['network'] = 'unrestricted'): LimitsProfile => ({
  network,
  filesystem: { read, write },
  passEnv: [],
});

describe('paths', () => {
  it('normalizes and tells inside from beside', () => {
    expect(normalizePath('/a/./b/../c//')).toBe('/a/c');
    expect(isWithin('/home/ann/project/x', '/home/ann/project')).toBe(true);
    expect(isWithin('/home/ann/project', '/home/ann/project/')).toBe(true);
    expect(isWithin('/home/ann/project2', '/home/ann/project')).toBe(false);
    expect(isWithin('/home/ann/project/../secret', '/home/ann/project')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });

  it('refuses relative paths and odd variable names', () => {
    expect(limitsProblems({ ...fs(['project']), passEnv: ['OK_NAME', 'BAD-NAME'] })).toEqual([
      "'project' is not an absolute path",
      "'BAD-NAME' is not a variable name",
    ]);
    expect(limitsProblems(fs(['/p'], ['/q']))).toEqual([]);
  });
});

describe('isLooser / isTighter', () => {
  const approved = fs(['/home/ann/docs'], ['/home/ann/project'], 'none');

  it('turning the network on loosens; turning it off tightens', () => {
    expect(isLooser({ ...approved, network: 'unrestricted' }, approved)).toBe(true);
    const open = { ...approved, network: 'unrestricted' as const };
    expect(isTighter(approved, open)).toBe(true);
    expect(isLooser(approved, open)).toBe(false);
  });

  it('a new path loosens unless an approved path already covers it', () => {
    expect(isLooser(fs(['/home/ann/docs', '/home/ann/mail'], ['/home/ann/project'], 'none'), approved)).toBe(true);
    expect(isLooser(fs(['/home/ann/docs/sub'], ['/home/ann/project'], 'none'), approved)).toBe(false);
    // Reading what it could write is nothing new; writing what it could only read is.
    expect(isLooser(fs(['/home/ann/docs', '/home/ann/project'], [], 'none'), approved)).toBe(false);
    expect(isLooser(fs([], ['/home/ann/docs', '/home/ann/project'], 'none'), approved)).toBe(true);
    expect(isLooser(fs(['/home/ann/docs/../mail'], ['/home/ann/project'], 'none'), approved)).toBe(true);
  });

  it('the whole filesystem loosens any path limit; any path limit tightens the whole filesystem', () => {
    expect(isLooser({ ...approved, filesystem: 'host' }, approved)).toBe(true);
    expect(isTighter(fs(['/x']), NO_LIMITS)).toBe(true);
  });

  it('passing on another variable loosens', () => {
    expect(isLooser({ ...approved, passEnv: ['GITHUB_TOKEN'] }, approved)).toBe(true);
    expect(isTighter(approved, { ...approved, passEnv: ['GITHUB_TOKEN'] })).toBe(true);
  });

  it('taking the network variables away tightens; giving them back, or any one of them, loosens', () => {
    const none = { ...approved, noPassEnv: ['*'] };
    const noProxy = { ...approved, noPassEnv: ['HTTPS_PROXY', 'https_proxy'] };
    expect(isTighter(none, approved)).toBe(true);
    expect(isTighter(noProxy, approved)).toBe(true);
    expect(isLooser(approved, none)).toBe(true);
    expect(isLooser(noProxy, none)).toBe(true);
    expect(isLooser({ ...none, passEnv: ['NODE_EXTRA_CA_CERTS'] }, none)).toBe(true);
    expect(isLooser(none, noProxy)).toBe(false);
    // A network variable named in passEnv passes whatever noPassEnv says: naming it there is no change.
    expect(sameLimits({ ...approved, passEnv: ['HTTPS_PROXY'] }, approved)).toBe(true);
    expect(limitsProblems({ ...approved, noPassEnv: ['*', 'HTTPS_PROXY', 'BAD-NAME'] })).toEqual(["'BAD-NAME' is not a variable name"]);
  });

  it('a mixed change (tighter here, looser there) is looser: it needs consent', () => {
    const mixed = fs(['/home/ann/docs'], [], 'unrestricted');
    expect(isLooser(mixed, approved)).toBe(true);
    expect(isTighter(mixed, approved)).toBe(false);
  });

  it('the same limits are neither', () => {
    expect(isLooser(approved, structuredClone(approved))).toBe(false);
    expect(isTighter(approved, structuredClone(approved))).toBe(false);
  });
});

describe('summaries', () => {
  const home = '/home/ann';

  it('reads as a badge, with the home folder as ~', () => {
    expect(summarizeLimits(readOnly(fs([], ['/home/ann/project'], 'none')), home)).toBe('no network · read-only ~/project');
    expect(summarizeLimits(fs(['/etc/app'], ['/home/ann/out']), home)).toBe('read-only /etc/app · writes ~/out');
    expect(summarizeLimits(fs([]), home)).toBe('no files');
    expect(summarizeLimits({ ...NO_LIMITS, passEnv: ['A', 'B'] })).toBe('env +A, +B');
    expect(summarizeLimits(NO_LIMITS)).toBe('no limits');
    expect(summarizeLimits({ ...NO_LIMITS, noPassEnv: ['*'] })).toBe('no network variables');
    expect(summarizeLimits({ ...NO_LIMITS, noPassEnv: ['HTTPS_PROXY'] })).toBe('env without HTTPS_PROXY');
  });

  it('says enforced only when every asked limit is', () => {
    const limits = readOnly(fs([], ['/home/ann/project'], 'none'));
    const bwrap: LimitsEnforcement = { sandbox: 'bubblewrap', network: 'enforced', filesystem: 'enforced', env: 'enforced', processes: 'enforced' };
    expect(summarizeEnforced(limits, bwrap, home)).toBe('no network · read-only ~/project (enforced)');
    const noNet: LimitsEnforcement = { ...bwrap, network: 'not enforced', reason: 'no network namespace here' };
    expect(summarizeEnforced(limits, noNet, home)).toBe('no network · read-only ~/project (not enforced: network: no network namespace here)');
    const none: LimitsEnforcement = {
      sandbox: 'none',
      reason: 'no sandbox is available on win32',
      network: 'no limit',
      filesystem: 'no limit',
      env: 'enforced',
      processes: 'not enforced',
    };
    expect(summarizeEnforced(NO_LIMITS, none)).toBe('no limits (not sandboxed: no sandbox is available on win32)');
  });
});

describe('offered defaults', () => {
  const home = '/home/ann';

  it("makes the filesystem server's directories its writable roots, or read-only ones", () => {
    const config = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '~/project', '/srv/data/'] };
    expect(offerLimits(config, { home }).limits.filesystem).toEqual({ read: [], write: ['/home/ann/project', '/srv/data'] });
    expect(offerLimits(config, { home, readOnly: true }).limits.filesystem).toEqual({ read: ['/home/ann/project', '/srv/data'], write: [] });
    const local = { command: '/usr/bin/node', args: ['/w/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '/tmp/x'] };
    expect(offerLimits(local).limits.filesystem).toEqual({ read: [], write: ['/tmp/x'] });
  });

  it('leaves other servers their filesystem, and offers no network only when every tool says closed-world', () => {
    const config = { command: 'node', args: ['server.js', '/tmp/x'] };
    const closed = [{ annotations: { openWorldHint: false } }, { annotations: { openWorldHint: false } }];
    const offer = offerLimits(config, { tools: closed });
    expect(offer.limits).toEqual({ ...NO_LIMITS, network: 'none' });
    expect(offer.why).toEqual(['every tool says it does not reach the outside world (openWorldHint: false)']);
    // A missing hint takes the cautious default (open world); so does an empty listing.
    expect(offerLimits(config, { tools: [...closed, {}] }).limits.network).toBe('unrestricted');
    expect(offerLimits(config, { tools: [] }).limits.network).toBe('unrestricted');
  });

  it('does not change the shared default it starts from', () => {
    offerLimits({ command: 'node', args: ['@modelcontextprotocol/server-filesystem', '/x'] }, { tools: [{ annotations: { openWorldHint: false } }] });
    expect(NO_LIMITS).toEqual({ network: 'unrestricted', filesystem: 'host', passEnv: [] });
  });
});
