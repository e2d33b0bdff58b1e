import { describe, expect, it } from 'vitest';
import { decide } from './decide.js';
import type { DecisionInput } from './decision.js';
import { enforcedFacts, limitNotes, type LimitsInForce } from './enforced-limits.js';
import type { LimitsEnforcement, LimitsProfile } from './limits.js';
import type { ToolDefinition } from './tool.js';

const READ: ToolDefinition = { name: 'read_file', annotations: { readOnlyHint: true, openWorldHint: false } };
const WRITE: ToolDefinition = { name: 'write_file', annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false } };
const FETCH: ToolDefinition = { name: 'fetch', annotations: { readOnlyHint: true, openWorldHint: true } };

const enforced: LimitsEnforcement = { sandbox: 'bubblewrap', network: 'enforced', filesystem: 'enforced', env: 'enforced', processes: 'enforced' };
const notEnforced: LimitsEnforcement = {
  sandbox: 'none',
  reason: 'bubblewrap is not installed',
  network: 'not enforced',
  filesystem: 'not enforced',
  env: 'enforced',
  processes: 'not enforced',
};
const readOnlyOffline: LimitsProfile = { network: 'none', filesystem: { read: ['/home/ann/project'], write: [] }, passEnv: [] };
const run = (limits: LimitsProfile, enforcement: LimitsEnforcement): LimitsInForce => ({ limits, enforcement });

function input(tool: ToolDefinition, trusted: boolean, running?: LimitsInForce, readLocal = false): DecisionInput {
  return {
    server: { name: 'fs', trusted },
    tool,
    toolName: tool.name,
    rules: [],
    session: { allowedTools: new Set(), hasReadLocalData: readLocal },
    ...(running ? { enforced: enforcedFacts(running, '/home/ann') } : {}),
  };
}

const codes = (i: DecisionInput): string[] => decide(i).reasons.map((r) => r.code);

describe('facts from enforced limits', () => {
  it('counts only what the sandbox enforces', () => {
    expect(enforcedFacts(run(readOnlyOffline, enforced), '/home/ann')).toEqual({
      noNetwork: true,
      readOnlyFiles: true,
      summary: 'no network · read-only ~/project (enforced)',
    });
    expect(enforcedFacts(run(readOnlyOffline, notEnforced))).toMatchObject({ noNetwork: false, readOnlyFiles: false });
    // A writable root: the files are not read-only, whatever the tool says.
    expect(enforcedFacts(run({ ...readOnlyOffline, filesystem: { read: [], write: ['/p'] } }, enforced))).toMatchObject({
      readOnlyFiles: false,
      noNetwork: true,
    });
    expect(enforcedFacts(run({ ...readOnlyOffline, network: 'unrestricted' }, { ...enforced, network: 'no limit' }))).toMatchObject({
      noNetwork: false,
      readOnlyFiles: true,
    });
    expect(enforcedFacts(undefined)).toMatchObject({ noNetwork: false, readOnlyFiles: false });
  });

  it('flags claims an enforced limit contradicts, and only real boolean claims', () => {
    const facts = enforcedFacts(run(readOnlyOffline, enforced));
    expect(limitNotes(FETCH, facts)).toEqual(['open-world-without-network']);
    expect(limitNotes(WRITE, facts)).toEqual(['network-off-enforced', 'write-on-read-only']);
    expect(limitNotes({ name: 'bare' }, facts)).toEqual(['network-off-enforced']);
    expect(limitNotes({ name: 'odd', annotations: { readOnlyHint: 'false', openWorldHint: 1 } }, facts)).toEqual(['network-off-enforced']);
    expect(limitNotes(WRITE, enforcedFacts(run(readOnlyOffline, notEnforced)))).toEqual([]);
  });
});

describe('the decision with enforced limits', () => {
  it('a trusted server with an enforced read-only mount: its read-only tools show "read-only: enforced"', () => {
    const r = decide(input(READ, true, run(readOnlyOffline, enforced)));
    expect(r.outcome).toBe('allow');
    expect(r.reasons.map((x) => x.code)).toContain('read-only-enforced');
    expect(r.reasons.find((x) => x.code === 'read-only-enforced')!.message).toMatch(/^read-only: enforced\./);
    // Without the sandbox it is the trusted claim, as before.
    expect(codes(input(READ, true, run(readOnlyOffline, notEnforced)))).toEqual(['trusted-read-only']);
    expect(codes(input(READ, true))).toEqual(['trusted-read-only']);
  });

  it('network enforced off: the exfiltration guard does not ask, whoever the server is; an untrusted server still asks', () => {
    const offline = run({ network: 'none', filesystem: 'host', passEnv: [] }, { ...enforced, filesystem: 'no limit' });
    const trusted = decide(input(FETCH, true, offline, true));
    expect(trusted.outcome).toBe('allow');
    expect(trusted.reasons.map((x) => x.code)).toEqual(['open-world-without-network', 'trusted-read-only']);
    expect(trusted.hints.openWorldHint).toBe(false);
    const untrusted = codes(input(FETCH, false, offline, true));
    expect(untrusted).not.toContain('exfiltration-risk');
    expect(untrusted).not.toContain('open-world');
    expect(untrusted).toContain('untrusted-server');
    expect(decide(input(FETCH, false, offline, true)).outcome).toBe('ask');
  });

  it('open-world with a network, or with the limit not enforced, stays guarded as today', () => {
    for (const running of [undefined, run({ network: 'none', filesystem: 'host', passEnv: [] }, notEnforced)]) {
      const r = decide(input(FETCH, true, running, true));
      expect(r.outcome).toBe('ask');
      expect(r.reasons.map((x) => x.code)).toEqual(['exfiltration-risk', 'open-world', 'needs-approval']);
    }
  });

  it('a write tool on a read-only mount is flagged and still asks: a contradiction never removes friction', () => {
    const r = decide(input(WRITE, true, run(readOnlyOffline, enforced)));
    expect(r.outcome).toBe('ask');
    expect(r.reasons.map((x) => x.code)).toEqual(['destructive', 'write-on-read-only', 'network-off-enforced', 'needs-approval']);
  });
});
