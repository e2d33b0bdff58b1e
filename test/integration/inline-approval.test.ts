// Approval inside the client, with a real 1.x SDK client that handles elicitation, through both ways in:
// off by default; once the person turns it on for this client, a short pending call is offered as a
// form; the first answer wins from either place and the call runs once; large calls are not offered.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, InlineApprovalClient, PendingCall } from '../../shared/api.js';
import { splitHeadline } from '../../shared/card-order.js';
import { pendingCallWarnings } from '../../shared/call-warnings.js';
import { configure, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { CLI, EVERYTHING_SERVER, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
type Answer = (message: string, signal: AbortSignal) => Promise<Record<string, unknown>>;

async function formClient(broker: TestBroker, via: Via, answer: { current: Answer }): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client({ name: 'form-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
    asked.push(req.params.message);
    return answer.current(req.params.message, extra.signal) as never;
  });
  const transport =
    via === 'connect'
      ? new StdioClientTransport({ command: NODE, args: [CLI, 'connect', 'everything', '--data-dir', broker.dataDir], stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/everything`), {
          requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}` } },
        });
  await client.connect(transport);
  return { client, asked };
}

const approve: Answer = async () => ({ action: 'accept', content: { decision: 'approve' } });
const WARNING_LINE = /^(Danger|Warning|Note|This call): /;

// The form shows the queue card's headline: the same lines, in the same order, at most three.
function expectCardHeadline(asked: string, pending: PendingCall): void {
  const { headline } = splitHeadline(pendingCallWarnings(pending));
  const lines = asked.split('\n').filter((l) => WARNING_LINE.test(l));
  expect(headline.length).toBeGreaterThan(0);
  expect(lines).toHaveLength(headline.length);
  headline.forEach((w, i) => expect(lines[i]).toContain(w.title));
}
const never: Answer = (_m, signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('cancelled by Countersign'))));

describe.each<Via>(['connect', 'http'])('approval inside the client via %s', (via) => {
  let broker: TestBroker;
  const answer = { current: approve };
  let form: Awaited<ReturnType<typeof formClient>>;

  beforeAll(async () => {
    const dataDir = makeDataDir();
    configure(dataDir, { everything: { command: NODE, args: [EVERYTHING_SERVER] } }); // untrusted: every call asks
    broker = await startServe(dataDir);
    form = await formClient(broker, via, answer);
  });

  afterAll(async () => {
    await form?.client.close();
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
  });

  const entriesFor = async (message: string, n = 1): Promise<AuditEntry[]> => {
    const mine = (e: AuditEntry): boolean => (e.arguments as { message?: string }).message === message;
    return (await broker.logWhen({ tool: 'echo' }, (l) => l.filter(mine).length >= n)).filter(mine);
  };

  it('is off by default: the client is not asked, and the call waits for Countersign', async () => {
    const call = form.client.callTool({ name: 'echo', arguments: { message: `off ${via}` } });
    const pending = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === `off ${via}`);
    await new Promise((r) => setTimeout(r, 300));
    expect(form.asked).toEqual([]);
    expect(await broker.api<InlineApprovalClient[]>('listInlineApproval')).toEqual([{ client: 'form-client', enabled: false, seen: true }]);
    await broker.api('decide', pending.id, { kind: 'allow-once' });
    expect(textOf(await call)).toContain(`off ${via}`);
  });

  it('once turned on (audited), a short call is approved in the client and runs once', async () => {
    await broker.api('setInlineApproval', 'form-client', true);
    const change = (await broker.logWhen({ search: 'approval inside the client' }, (l) => l.length > 0)).at(-1)!;
    expect(change).toMatchObject({ kind: 'settings', actor: 'browser', decision: 'allow', detail: 'approval inside the client turned on for form-client' });

    answer.current = approve;
    const message = `inline ${via}`;
    const result = await form.client.callTool({ name: 'echo', arguments: { message } });
    expect(textOf(result)).toContain(message);
    expect(form.asked.at(-1)).toMatch(/^Approve echo on everything\?\nArguments: .*inline/);
    expect(form.asked.at(-1)).toMatch(/Full preview: http:\/\/127\.0\.0\.1:\d+/);
    // An untrusted server: the card's first warning says so, and the form says it too.
    expect(
      form.asked
        .at(-1)!
        .split('\n')
        .filter((l) => WARNING_LINE.test(l)).length,
    ).toBeGreaterThan(0);
    expect(form.asked.at(-1)).not.toContain(broker.apiToken);
    const entries = await entriesFor(message);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ decision: 'allow', decidedBy: 'person', actor: 'client', status: 'ok' });
  });

  it('a deny in the client denies; nothing runs', async () => {
    answer.current = async () => ({ action: 'accept', content: { decision: 'deny' } });
    const message = `deny inline ${via}`;
    const result = (await form.client.callTool({ name: 'echo', arguments: { message } })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/denied this call: denied in the client/);
    expect((await entriesFor(message))[0]).toMatchObject({ decision: 'deny', decidedBy: 'person', actor: 'client', status: 'denied' });
  });

  it('an answer in Countersign first wins: the form is cancelled and the call runs once', async () => {
    const cancelled: string[] = [];
    answer.current = (m, signal) => {
      signal.addEventListener('abort', () => cancelled.push(m));
      return never(m, signal);
    };
    const message = `race ${via}`;
    const call = form.client.callTool({ name: 'echo', arguments: { message } });
    const pending = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === message);
    await expect.poll(() => form.asked.some((a) => a.includes(message))).toBe(true);
    expectCardHeadline(
      form.asked.find((a) => a.includes(message))!,
      pending,
    );
    expect(await broker.api('decide', pending.id, { kind: 'allow-once' })).toMatchObject({ ok: true, forwarded: true });
    expect(textOf(await call)).toContain(message);
    await expect.poll(() => cancelled.some((a) => a.includes(message))).toBe(true);
    expect(await entriesFor(message)).toHaveLength(1);
    // The late form answer has nothing left to decide.
    expect(await broker.api('decide', pending.id, { kind: 'deny' })).toEqual({ ok: false, error: 'not-pending' });
  });

  it('a call whose preview is more than a few lines is not offered: review in Countersign', async () => {
    answer.current = approve;
    const before = form.asked.length;
    const message = Array.from({ length: 12 }, (_, i) => `line ${i + 1} ${via}`).join('\n');
    const progress: string[] = [];
    const call = form.client.callTool({ name: 'echo', arguments: { message } }, undefined, { onprogress: (p) => progress.push(String(p.message)) });
    const pending = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === message);
    await expect.poll(() => progress.some((p) => p.startsWith('Review this call in Countersign'))).toBe(true);
    expect(form.asked.length).toBe(before);
    await broker.api('decide', pending.id, { kind: 'deny' });
    expect(((await call) as ToolResult).isError).toBe(true);
  });

  it('turned off again (audited), the client is no longer asked', async () => {
    await broker.api('setInlineApproval', 'form-client', false);
    const before = form.asked.length;
    const message = `off again ${via}`;
    const call = form.client.callTool({ name: 'echo', arguments: { message } });
    const pending = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === message);
    await new Promise((r) => setTimeout(r, 300));
    expect(form.asked.length).toBe(before);
    await broker.api('decide', pending.id, { kind: 'deny' });
    await call;
    const log = await broker.logWhen({ search: 'turned off for form-client' }, (l) => l.length > 0);
    expect(log.at(-1)).toMatchObject({ kind: 'settings', actor: 'browser', decision: 'deny' });
  });
});
