// Countersign's own files are masked in every sandbox, whatever the grant says and however it is
// spelled: checked here on real folders and symlinks, as bubblewrap flags and as a macOS profile.
// (test/integration/sandbox-escapes.test.ts tries them for real, inside bubblewrap.)
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_LIMITS, type LimitsProfile, type SandboxSupport } from '../../shared/limits.js';
import { hiddenFor, maskHidden, type HideSpec } from '../../electron/broker/upstream/sandbox/hidden-paths.js';
import { planLaunch } from '../../electron/broker/upstream/sandbox/launch-plan.js';
import { sbplProfile } from '../../electron/broker/upstream/sandbox/sbpl.js';
import { NODE } from '../helpers/paths.js';

const bwrap: SandboxSupport = { kind: 'bubblewrap', path: '/usr/bin/bwrap', network: true, nestedUserns: 'blocked' };

function flagPairs(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));
}

describe('hidden paths', () => {
  let root: string;
  let home: string;
  let data: string;
  let keys: string;
  let spec: HideSpec;

  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-hide-')));
    home = join(root, 'home');
    data = join(home, '.config', 'Countersign');
    keys = join(root, 'tmpkeys', 'countersign-keys');
    mkdirSync(join(data, 'packages', 'pkg@1', 'node_modules'), { recursive: true });
    mkdirSync(keys, { recursive: true });
    mkdirSync(join(home, '.cursor'), { recursive: true });
    mkdirSync(join(home, 'project'), { recursive: true });
    writeFileSync(join(home, '.cursor', 'mcp.json'), '{}');
    writeFileSync(join(data, 'mcp-token'), 't');
    symlinkSync(home, join(root, 'home-link'));
    symlinkSync(data, join(home, 'project', 'data-link'));
    spec = {
      paths: [
        { path: data, what: "Countersign's data folder" },
        { path: join(data, 'broker.sock'), what: "Countersign's socket" },
        { path: keys, what: "Countersign's seal key folder" },
        { path: join(home, '.cursor', 'mcp.json'), what: "Cursor's MCP config" },
        { path: join(home, '.claude.json'), what: "Claude Code's MCP config" },
      ],
      lent: [join(data, 'packages')],
    };
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const ro = (p: string) => ({ kind: 'ro' as const, src: p, dest: p });

  it('masks what a grant of a parent would show: the data folder, the key folder, a client config; not what does not exist', () => {
    const masked = maskHidden([ro(home), ro(join(root, 'tmpkeys'))], spec);
    expect(masked.masks).toEqual(
      expect.arrayContaining([
        { kind: 'mask-dir', dest: data },
        { kind: 'mask-dir', dest: keys },
        { kind: 'mask-file', dest: join(home, '.cursor', 'mcp.json') },
      ]),
    );
    // The missing ~/.claude.json is not created by a mask; the socket inside the masked folder adds nothing.
    expect(masked.masks.map((m) => m.dest)).not.toContain(join(home, '.claude.json'));
    expect(masked.masks).toHaveLength(3);
    expect(masked.hidden).toEqual(
      expect.arrayContaining([
        { path: data, what: "Countersign's data folder" },
        { path: keys, what: "Countersign's seal key folder" },
      ]),
    );
  });

  it('masks where the server sees it when the grant is reached through a symlink', () => {
    const link = join(root, 'home-link');
    const masked = maskHidden([{ kind: 'ro', src: link, dest: link }], spec);
    expect(masked.masks.map((m) => m.dest).sort()).toEqual([join(link, '.config', 'Countersign'), join(link, '.cursor', 'mcp.json')]);
  });

  it('replaces a grant that IS a hidden folder, or lies in one, or reaches one through a symlink, by an empty mask', () => {
    for (const grant of [data, join(data, 'packages'), join(home, 'project', 'data-link'), `${home}/project/../.config/Countersign`]) {
      const masked = maskHidden([{ kind: 'rw', src: grant, dest: grant }], spec);
      expect(masked.mounts, grant).toEqual([]);
      expect(masked.masks, grant).toEqual([{ kind: 'mask-dir', dest: grant }]);
    }
  });

  it('keeps a package Countersign prepared in its data folder, read-only, on top of the mask', () => {
    const pkg = join(data, 'packages', 'pkg@1', 'node_modules');
    const masked = maskHidden([ro(home), ro(pkg)], spec);
    expect(masked.mounts).toEqual([ro(home), ro(pkg)]);
    expect(masked.masks).toContainEqual({ kind: 'mask-dir', dest: data });
    // Lent only read-only: writable, it could change the code another server runs.
    expect(maskHidden([{ kind: 'rw', src: pkg, dest: pkg }], spec)).toMatchObject({ mounts: [], masks: [{ kind: 'mask-dir', dest: pkg }] });
    // On the whole file system it is lent back over the mask.
    const host = maskHidden('host', spec);
    expect(host.masks).toEqual(
      expect.arrayContaining([
        { kind: 'mask-dir', dest: data },
        { kind: 'ro', src: join(data, 'packages'), dest: join(data, 'packages') },
      ]),
    );
  });

  it('masks them all on the whole file system (a server with no file limits), and a grant of / likewise', () => {
    const dests = (m: ReturnType<typeof maskHidden>) =>
      m.masks
        .filter((x) => x.kind.startsWith('mask-'))
        .map((x) => x.dest)
        .sort();
    expect(dests(maskHidden('host', spec))).toEqual([data, join(home, '.cursor', 'mcp.json'), keys].sort());
    expect(dests(maskHidden([ro('/')], spec))).toEqual([data, join(home, '.cursor', 'mcp.json'), keys].sort());
  });

  it('pins every folder between a writable grant and a mask, so none can be moved aside and replaced', () => {
    const rw = maskHidden([{ kind: 'rw', src: home, dest: home }], spec);
    expect(rw.masks.filter((m) => m.kind === 'rw')).toEqual([
      { kind: 'rw', src: join(home, '.config'), dest: join(home, '.config') },
      { kind: 'rw', src: join(home, '.cursor'), dest: join(home, '.cursor') },
    ]);
    // Read-only, nothing can be moved: no pins.
    expect(maskHidden([ro(home)], spec).masks.some((m) => m.kind === 'rw')).toBe(false);
    // The whole file system: every folder from / down.
    const host = maskHidden('host', spec)
      .masks.filter((m) => m.kind === 'rw')
      .map((m) => m.dest);
    expect(host).toEqual(expect.arrayContaining(['/tmp', root, home, join(home, '.config'), join(home, '.cursor'), join(root, 'tmpkeys')]));
  });

  it('lays the masks over the grants in the bubblewrap command line, read-only, after everything is mounted', () => {
    const limits: LimitsProfile = { ...NO_LIMITS, filesystem: { read: [home], write: [join(home, 'project')] } };
    const plan = planLaunch({ command: NODE }, { limits, support: bwrap, platform: 'linux', source: { PATH: '/usr/bin', HOME: home }, hide: spec });
    const tmpfs = flagPairs(plan.args, '--tmpfs');
    expect(tmpfs).toEqual(expect.arrayContaining([data]));
    expect(flagPairs(plan.args, '--ro-bind').filter((_, i, all) => all[i] === '/dev/null')).toEqual(['/dev/null']);
    expect(plan.args.join(' ')).toContain(`--ro-bind /dev/null ${join(home, '.cursor', 'mcp.json')}`);
    const remounts = flagPairs(plan.args, '--remount-ro');
    expect(remounts).toEqual([data, '/proc']);
    // Each mask after the grant it masks.
    expect(plan.args.indexOf(data)).toBeGreaterThan(plan.args.indexOf(home));
    expect(plan.enforcement.hidden).toEqual(
      expect.arrayContaining([
        { path: data, what: "Countersign's data folder" },
        { path: join(home, '.cursor', 'mcp.json'), what: "Cursor's MCP config" },
      ]),
    );
    // The server screen says the same before any start.
    expect(hiddenFor(limits, bwrap, spec)).toEqual(plan.enforcement.hidden);
    expect(hiddenFor(limits, { kind: 'none', reason: 'x' }, spec)).toEqual([]);
  });

  it('denies them last in the macOS profile, reading, writing and connecting, and lends the prepared package back', () => {
    const { profile, params } = sbplProfile({
      network: true,
      runtime: [],
      read: ['/'],
      write: [],
      tmp: '/private/tmp/x',
      hidden: [data, keys],
      lent: [join(data, 'packages')],
    });
    const lines = profile.trim().split('\n');
    expect(lines.slice(-3)).toEqual([
      '(deny file-read* file-write* (subpath (param "H0")) (subpath (param "H1")))',
      '(deny network-outbound (subpath (param "H0")) (subpath (param "H1")))',
      '(allow file-read* (subpath (param "L0")))',
    ]);
    expect(params).toMatchObject({ H0: data, H1: keys, L0: join(data, 'packages') });
    expect(sbplProfile({ network: true, runtime: [], read: ['/'], write: [], tmp: '/t' }).profile).not.toContain('deny file');
    const mac: SandboxSupport = { kind: 'sandbox-exec', path: '/usr/bin/sandbox-exec' };
    const plan = planLaunch(
      { command: NODE },
      { limits: { ...NO_LIMITS, network: 'none' }, support: mac, platform: 'darwin', source: { PATH: '/usr/bin' }, hide: spec },
    );
    try {
      expect(plan.args.join('\n')).toContain(`H0=${data}`);
      expect(plan.enforcement.hidden?.map((h) => h.path)).toEqual([data, keys, join(home, '.cursor', 'mcp.json')]);
    } finally {
      if (plan.scratch) rmSync(plan.scratch, { recursive: true });
    }
  });
});
