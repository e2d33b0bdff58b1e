// The gate's pure step (calls/gate-decision.ts) over plain facts, in-process, no processes: every plan,
// every reason code the gate can log, how a call is forwarded, and how a person's answer is acted on.
// And the gather step (calls/gate-facts.ts): trust is read once per call, card findings only when it asks.
import { describe, expect, it } from 'vitest';
import type { ReasonCode, Rule } from '../../shared/decision.js';
import type { EnforcedFacts } from '../../shared/enforced-limits.js';
import type { ProtectedMatch } from '../../shared/protected-paths.js';
import type { ToolAnnotations, ToolDefinition } from '../../shared/tool.js';
import { afterApproval, afterWait, decideGate, forwardPlan, type GatePlan } from '../../electron/broker/calls/gate-decision.js';
import {
  gatherCallFacts,
  gatherCardFacts,
  type DecisionFacts,
  type FactSources,
  type GateFacts,
  type GateTrust,
} from '../../electron/broker/calls/gate-facts.js';
import type { SchemaCheck } from '../../electron/broker/checks/schema-check.js';
import { scopeFor } from '../../electron/broker/checks/self-protection.js';
import type { CallBlock } from '../../electron/broker/trust/call-view.js';
import type { GateSession, ToolCallContext } from '../../electron/broker/calls/gate-contract.js';

const def = (name: string, annotations?: ToolAnnotations, inputSchema: object = { type: 'object' }): ToolDefinition => ({
  name,
  inputSchema,
  ...(annotations ? { annotations } : {}),
});
const READ = def('read_file', { readOnlyHint: true, openWorldHint: false });
const WRITE = def('write_file', { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
const MKDIR = def('create_directory', { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
const FETCH = def('fetch', { readOnlyHint: true, openWorldHint: true });
const BARE = def('run');
const NOW = Date.parse('2026-06-01T00:00:00Z');
const SCOPE = scopeFor([], '/');
const NO_SCHEMA_ISSUE = { violated: false, findings: [] };
const VIOLATED: SchemaCheck = {
  violated: true,
  findings: [{ code: 'schema-violation', severity: 'warning', message: 'The arguments do not match the schema.', excerpt: '{}' }],
};
const NO_NET: EnforcedFacts = { noNetwork: true, readOnlyFiles: false, summary: 'no network (enforced)' };
const READ_ONLY_FILES: EnforcedFacts = { noNetwork: false, readOnlyFiles: true, summary: 'read-only ~/p (enforced)' };
const INSIDE: ProtectedMatch = { kind: 'inside', what: "Countersign's data folder", root: '/d', text: '/d/x' };
const rule = (tool: string, extra: Partial<Rule> = {}): Rule => ({
  id: `r-${tool}`,
  server: 's',
  tool,
  action: 'allow',
  createdAt: '2026-01-01T00:00:00Z',
  ...extra,
});

function facts(tool: ToolDefinition | undefined, f: Partial<DecisionFacts> = {}, toolName = tool?.name ?? 'missing'): GateFacts {
  return {
    server: 's',
    toolName,
    history: { readLocalData: f.hasReadLocalData ?? false },
    call: {
      trusted: true,
      tool,
      arguments: {},
      rules: [],
      sessionId: 'sess',
      now: NOW,
      allowedTools: new Set(),
      hasReadLocalData: false,
      paused: false,
      policyAlwaysAsk: false,
      scope: SCOPE,
      protectedMatches: [],
      schema: NO_SCHEMA_ISSUE,
      takesLeases: false,
      ...f,
    },
  };
}

const codes = (plan: GatePlan): string[] => (plan.kind === 'refuse' ? plan.reasons : plan.decided.reasons);

describe('decideGate: each plan and each reason the gate logs', () => {
  const block = (code: CallBlock['code']): GateFacts => ({ server: 's', toolName: 't', block: { code, message: `refused: ${code}` } });
  const rows: Array<[string, GateFacts, GatePlan['kind'], string, ReasonCode[]]> = [
    // [name, facts, plan, decidedBy (allow/deny/ask) or '' (refuse), logged reason codes in order]
    ['log cannot be written: refused bare', { server: 's', toolName: 't', refused: 'The audit log cannot be written.' }, 'refuse', '', []],
    ['blocked by the team policy', block('blocked-by-policy'), 'refuse', '', ['blocked-by-policy']],
    ['quarantined', block('quarantined'), 'refuse', '', ['quarantined']],
    ['held for review', block('held-for-review'), 'refuse', '', ['held-for-review']],
    ['paused denies', facts(READ, { paused: true }), 'deny', 'policy', ['paused']],
    ['trusted read-only allows', facts(READ), 'allow', 'policy', ['trusted-read-only']],
    ['read-only backed by the sandbox', facts(READ, { enforced: READ_ONLY_FILES }), 'allow', 'policy', ['read-only-enforced']],
    ['a session allowance allows', facts(MKDIR, { allowedTools: new Set(['create_directory']) }), 'allow', 'session', ['session-allow']],
    ['a rule allows', facts(MKDIR, { rules: [rule('create_directory')] }), 'allow', 'rule', ['user-rule-allow']],
    ['destructive asks', facts(WRITE), 'ask', 'policy', ['destructive', 'needs-approval']],
    [
      'untrusted: claims unverified, rule ignored, policy always-ask noted',
      facts(READ, { trusted: false, rules: [rule('read_file')], policyAlwaysAsk: true }),
      'ask',
      'policy',
      ['destructive', 'untrusted-server', 'open-world', 'unverified-claims', 'user-rule-ignored-untrusted', 'policy-always-ask'],
    ],
    [
      'unknown tool, no annotations',
      facts(undefined, {}, 'ghost'),
      'ask',
      'policy',
      ['destructive', 'unknown-tool', 'no-annotations', 'open-world', 'needs-approval'],
    ],
    [
      'a local read, then open world: exfiltration',
      facts(FETCH, { hasReadLocalData: true }),
      'ask',
      'policy',
      ['exfiltration-risk', 'open-world', 'needs-approval'],
    ],
    ['self-protection asks even a trusted read', facts(WRITE, { protectedMatches: [INSIDE] }), 'ask', 'policy', ['protected-path', 'destructive']],
    ['the team policy always asks', facts(READ, { policyAlwaysAsk: true }), 'ask', 'policy', ['policy-always-ask']],
    ['a continuation of a one-time yes asks again', facts(READ, { earlierBy: 'person' }), 'ask', 'policy', ['policy-always-ask']],
    ['a schema violation turns an allow into an ask', facts(READ, { schema: VIOLATED }), 'ask', 'policy', ['schema-violation', 'trusted-read-only']],
    ['network off: noted', facts(MKDIR, { enforced: NO_NET, rules: [rule('create_directory')] }), 'allow', 'rule', ['network-off-enforced', 'user-rule-allow']],
    ['network off contradicts an open-world claim', facts(FETCH, { enforced: NO_NET }), 'allow', 'policy', ['open-world-without-network', 'trusted-read-only']],
    ['a write claim on read-only files', facts(WRITE, { enforced: READ_ONLY_FILES }), 'ask', 'policy', ['destructive', 'write-on-read-only', 'needs-approval']],
  ];
  it.each(rows)('%s', (_name, input, kind, decidedBy, reasons) => {
    const plan = decideGate(input);
    expect(plan.kind).toBe(kind);
    if (plan.kind !== 'refuse') expect(plan.decided.decision.decidedBy).toBe(decidedBy);
    expect(codes(plan)).toEqual(reasons);
  });

  it('a refusal carries its message; a policy deny says why in the log and the answer', () => {
    expect(decideGate({ server: 's', toolName: 't', refused: 'no log' })).toEqual({ kind: 'refuse', reasons: [], detail: 'no log' });
    const plan = decideGate(facts(READ, { paused: true }));
    if (plan.kind !== 'deny') throw new Error(plan.kind);
    expect(plan.stop.log).toEqual({ decidedBy: 'policy', status: 'denied', detail: plan.stop.answer });
    expect(plan.stop.answer).toMatch(/paused/i);
  });

  it('the schema violation is noted for the log', () => {
    const plan = decideGate(facts(READ, { schema: VIOLATED }));
    if (plan.kind === 'refuse') throw new Error('refused');
    expect(plan.decided.schemaNote).toBe('The arguments do not match the schema.');
    expect(plan.decided.decision.preview).toBe(true);
    const clean = decideGate(facts(READ));
    expect(clean.kind !== 'refuse' && clean.decided.schemaNote).toBeUndefined();
  });

  it('rules expire by the gathered time, not the clock', () => {
    const expiring = rule('create_directory', { expiresAt: new Date(NOW + 60_000).toISOString() });
    expect(decideGate(facts(MKDIR, { rules: [expiring], now: NOW })).kind).toBe('allow');
    expect(decideGate(facts(MKDIR, { rules: [expiring], now: NOW + 120_000 })).kind).toBe('ask');
  });

  it('the same facts give the same plan (nothing read besides them)', () => {
    const input = facts(FETCH, { hasReadLocalData: true, rules: [rule('fetch', { coversExfiltration: true })] });
    expect(decideGate(input)).toEqual(decideGate(input));
    expect(decideGate(input).kind).toBe('allow');
  });
});

describe('forwardPlan: how an allowed call runs', () => {
  const allowed = (f: GateFacts) => {
    const plan = decideGate(f);
    if (plan.kind !== 'allow') throw new Error(plan.kind);
    return plan;
  };

  it('a local read marks the client; an open-world read does not', () => {
    expect(allowed(facts(READ)).forward.marksLocalRead).toBe(true);
    expect(allowed(facts(FETCH)).forward.marksLocalRead).toBe(false);
  });

  it('only automatic allows by policy, session or a plain rule are leased, and only to a session that takes leases', () => {
    expect(allowed(facts(READ, { takesLeases: true })).forward.leasable).toBe(true);
    expect(allowed(facts(READ, { takesLeases: false })).forward.leasable).toBe(false);
    expect(allowed(facts(MKDIR, { takesLeases: true, rules: [rule('create_directory')] })).forward.leasable).toBe(true);
    const scoped = rule('create_directory', { scope: { kind: 'exact', arguments: '{}' } });
    expect(allowed(facts(MKDIR, { takesLeases: true, rules: [scoped] })).forward.leasable).toBe(false);
    const plan = allowed(facts(READ, { takesLeases: true }));
    expect(forwardPlan(plan.decided, { trusted: true, takesLeases: true }, 'person', 'session', 'desktop').leasable).toBe(false);
  });

  it('a timed-out call is retried only for a trusted idempotent write that said so', () => {
    expect(allowed(facts(MKDIR, { rules: [rule('create_directory')] })).forward.retryOnTimeout).toBe(true);
    expect(allowed(facts(READ)).forward.retryOnTimeout).toBe(false);
    const noClaim = def('create_directory', { readOnlyHint: false, destructiveHint: false, openWorldHint: false });
    expect(allowed(facts(noClaim, { rules: [rule('create_directory')] })).forward.retryOnTimeout).toBe(false);
    const plan = allowed(facts(MKDIR, { rules: [rule('create_directory')] }));
    expect(forwardPlan(plan.decided, { trusted: false, takesLeases: false }, 'person').retryOnTimeout).toBe(false);
  });

  it('says who decided, what was granted, and what the tool claims for the lease', () => {
    const plan = allowed(facts(MKDIR, { allowedTools: new Set(['create_directory']) }));
    expect(plan.forward).toMatchObject({ decidedBy: 'session', granted: 'session', toolOnlyReads: false });
    expect(allowed(facts(READ)).forward.toolOnlyReads).toBe(true);
  });
});

describe("afterWait and afterApproval: acting on the person's answer", () => {
  it.each([
    ['allow-once', 'person', false],
    ['allow-session', 'session', true],
    ['always-allow', 'rule', false],
  ] as const)('%s grants %s', (kind, granted, sessionAllow) => {
    expect(afterWait({ kind, actor: 'desktop' }, 60_000, 5)).toEqual({ kind: 'approved', granted, sessionAllow, actor: 'desktop' });
  });

  it('allow-rule grants a one-time yes for continuations', () => {
    expect(afterWait({ kind: 'allow-rule', actor: 'desktop', rule: {} }, 60_000, 5)).toMatchObject({
      kind: 'approved',
      granted: 'person',
      sessionAllow: false,
    });
  });

  it("a person's no, with and without a reason", () => {
    expect(afterWait({ kind: 'deny', by: 'person', reason: 'not now', actor: 'desktop' }, 60_000, 5)).toEqual({
      kind: 'stop',
      log: { decidedBy: 'person', status: 'denied', detail: 'not now', actor: 'desktop' },
      answer: 'The person using Countersign denied this call: not now It was not run.',
    });
    const bare = afterWait({ kind: 'deny', by: 'person', actor: 'desktop' }, 60_000, 5);
    expect(bare.kind === 'stop' && bare.log.detail).toBe('The person using Countersign denied this call. It was not run.');
  });

  it('the timeout denies, saying how long it waited', () => {
    const plan = afterWait({ kind: 'deny', by: 'timeout' }, 120_000, 120_000);
    expect(plan).toMatchObject({ kind: 'stop', log: { decidedBy: 'timeout', status: 'denied' } });
    expect(plan.kind === 'stop' && plan.answer).toBe('No one approved this call within 120 s, so Countersign denied it. It was not run.');
  });

  it("the client gave up: logged as the client's, and its patience is learned", () => {
    const plan = afterWait({ kind: 'cancelled', end: { by: 'client', reason: 'Request timed out\u202e' } }, 60_000, 30_000);
    expect(plan).toMatchObject({ kind: 'stop', log: { decidedBy: 'client', status: 'cancelled' }, clientStopped: { reason: 'Request timed out\u202e' } });
    // What the client said is escaped for the log.
    expect(plan.kind === 'stop' && plan.log.detail).toBe(
      'The agent stopped waiting after 30 s (its client said: Request timed out\\u202e), before anyone decided. It was not run.',
    );
    expect(plan.kind === 'stop' && plan.answer).toBe('The call was cancelled before anyone decided. It was not run.');
  });

  it('the session ended: cancelled, and no patience is learned', () => {
    const plan = afterWait({ kind: 'cancelled', end: { by: 'session', why: 'the client closed' } }, 60_000, 2_000);
    expect(plan).toMatchObject({
      kind: 'stop',
      log: { decidedBy: 'cancelled', status: 'cancelled', detail: 'The session ended after 2 s (the client closed), before anyone decided. It was not run.' },
    });
    expect(plan.kind === 'stop' && 'clientStopped' in plan).toBe(false);
  });

  it('a tool blocked while the person looked is not run; nothing blocked runs', () => {
    expect(afterApproval(undefined, 'desktop')).toBeUndefined();
    expect(afterApproval({ code: 'held-for-review', message: 'changed' }, 'desktop')).toEqual({
      kind: 'stop',
      log: { decidedBy: 'policy', status: 'denied', detail: 'changed', actor: 'desktop' },
      answer: 'changed',
    });
  });
});

describe('gatherCallFacts: one read of trust per call', () => {
  function sources(view: ReturnType<GateTrust['callView']>) {
    const reads = { callView: 0, callFindings: 0, history: 0 };
    const trust: GateTrust = {
      callView: () => (reads.callView++, view),
      callFindings: async () => (reads.callFindings++, { identity: [], tool: [], arguments: [] }),
      onPersonApproved: () => undefined,
    };
    const history = { readLocalData: true };
    const src: FactSources & { listings(): Map<string, ToolDefinition[]> } = {
      trust,
      isTrusted: () => true,
      rules: () => [],
      paused: () => false,
      protectScope: () => SCOPE,
      history: () => (reads.history++, history),
      listings: () => new Map(),
    };
    return { src, reads };
  }
  const session: GateSession = {
    id: 'sess',
    serverName: 's',
    clientKey: 'c',
    allowedTools: new Set(['read_file']),
    takesLeases: true,
    toolDefinition: async (name) => (name === 'read_file' ? READ : undefined),
    knownTools: () => [READ],
  };
  const ctx = (toolName: string, args: unknown = { path: '/tmp/x' }): ToolCallContext => ({
    session,
    request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: toolName, arguments: args } },
    toolName,
    arguments: args,
    signal: new AbortController().signal,
    progressRequested: false,
    sendProgress: () => undefined,
  });

  it('reads trust once, and gathers the facts the decision needs as plain data', async () => {
    const { src, reads } = sources({ alwaysAsk: false, protocolVersion: '2025-11-25' });
    const gathered = await gatherCallFacts(ctx('read_file'), src, NOW);
    expect(reads).toEqual({ callView: 1, callFindings: 0, history: 1 });
    if (!('call' in gathered)) throw new Error('not gathered');
    // The client's own record, which acting on the call updates (not a copy).
    expect(gathered.history).toBe(src.history('c'));
    expect(gathered.call).toMatchObject({
      trusted: true,
      tool: READ,
      now: NOW,
      hasReadLocalData: true,
      takesLeases: true,
      protocolVersion: '2025-11-25',
      schema: NO_SCHEMA_ISSUE,
    });
    // A copy: a later session allowance does not change the facts of this call.
    session.allowedTools.add('later');
    expect(gathered.call.allowedTools.has('later')).toBe(false);
    expect(decideGate(gathered).kind).toBe('allow');
  });

  it('a blocked tool: nothing more is gathered (its schema is never compiled)', async () => {
    const { src, reads } = sources({ alwaysAsk: false, block: { code: 'quarantined', message: 'q' } });
    const broken = { ...session, toolDefinition: async () => def('read_file', {}, { type: 'no-such-type' }) };
    const gathered = await gatherCallFacts({ ...ctx('read_file'), session: broken }, src, NOW);
    expect(gathered).toEqual({ server: 's', toolName: 'read_file', block: { code: 'quarantined', message: 'q' } });
    expect(reads).toEqual({ callView: 1, callFindings: 0, history: 0 });
  });

  it('the log cannot be written: trust is not even read', async () => {
    const { src, reads } = sources({ alwaysAsk: false });
    const gathered = await gatherCallFacts(ctx('read_file'), { ...src, refuse: () => 'no log' }, NOW);
    expect(gathered).toEqual({ server: 's', toolName: 'read_file', refused: 'no log' });
    expect(reads.callView).toBe(0);
  });

  it("an asked call's card: findings gathered once, self-protection first", async () => {
    const { src, reads } = sources({ alwaysAsk: true });
    const gathered = await gatherCallFacts(ctx('read_file'), src, NOW);
    if (!('call' in gathered)) throw new Error('not gathered');
    const withMatch = { ...gathered.call, protectedMatches: [INSIDE] };
    const card = await gatherCardFacts(ctx('read_file'), withMatch, gathered.history, src);
    expect(reads.callFindings).toBe(1);
    expect(card.findings.map((f) => f.code)).toEqual(['protected-path']);
  });
});
