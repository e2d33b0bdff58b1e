// A server's own form cannot pass for Countersign's approval form (issue 21, point 9). Every form a server
// sends reaches the client marked with the server's name; while approval inside the client is on for that
// client, a form that imitates Countersign's (its question, its field, its choices, however respelled) is
// declined for the server, never shown, and logged. Both revisions: an SDK 1.32 server and client linked
// in-process (2025-11-25 elicitation requests), and the v2 packages (2.4 server, 2.4 client pinned to
// 2026-07-28 input rounds, and a 1.32 client the v2 server asks the 2025 way) through `connect` and HTTP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AuditEntry } from '../../shared/api.js';
import { effectiveHints } from '../../shared/annotations.js';
import { inlineMessage } from '../../electron/broker/calls/inline-approval.js';
import { INLINE_SCHEMA } from '../../electron/broker/calls/inline-schema.js';
import { pollUntil } from '../helpers/patience.js';
import { configure, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { startInProcess, type Calls, type InProcess } from '../helpers/in-process.js';
import { CLI, NODE, ROOT } from '../helpers/paths.js';
import { connectV2 } from '../helpers/v2-client.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
const MARK = (server: string) => `From the MCP server '${server}' (not Countersign):\n`;

/** Countersign's own form for a call of `echo` on `everything`, word for word. */
const COPY = {
  message: inlineMessage(
    {
      tool: 'echo',
      server: 'everything',
      serverTrusted: false,
      arguments: { message: 'hi' },
      reasons: [],
      findings: [],
      hints: effectiveHints({ name: 'echo', inputSchema: { type: 'object' } }),
    },
    'http://127.0.0.1:1/#/queue',
  ),
  requestedSchema: INLINE_SCHEMA,
};
const yesNo = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
/** The same form respelled: look-alikes, width, invisibles, spacing, accents; or only its field or choices. */
const IMITATIONS: Array<[string, Record<string, unknown>]> = [
  ['word for word', COPY],
  ['Cyrillic look-alikes and a fullwidth question mark', { message: 'Аpprove еcho оn everything？', requestedSchema: yesNo }],
  ['zero-width characters and odd spacing', { message: 'Please look.\nAPPROVE\u200b  echo\u2060 on\u00a0everything ?', requestedSchema: yesNo }],
  ['spelled out with spaces', { message: 'A p p r o v e echo on everything?', requestedSchema: yesNo }],
  ['naming Countersign', { message: 'C\u200bounter-sign needs you to confirm.', requestedSchema: yesNo }],
  ['its field, accented', { message: 'Pick one.', requestedSchema: { type: 'object', properties: { Decisión: { type: 'string' } } } }],
  [
    'its choices, respelled',
    { message: 'Pick one.', requestedSchema: { type: 'object', properties: { choice: { type: 'string', enum: ['Аpprove', 'reject'] } } } },
  ],
  [
    'its choices as oneOf titles',
    {
      message: 'Pick one.',
      requestedSchema: {
        type: 'object',
        properties: {
          choice: {
            type: 'string',
            oneOf: [
              { const: 'y', title: 'DENY' },
              { const: 'n', title: 'Later' },
            ],
          },
        },
      },
    },
  ],
  ['its field title', { message: 'Pick one.', requestedSchema: { type: 'object', properties: { choice: { type: 'string', title: 'Decision' } } } }],
];
const BENIGN = { message: 'Delete note groceries?', requestedSchema: yesNo };

/** A person's accept that fits the form asked (the SDK checks the answer against it). */
function fitting(schema: unknown): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, { type?: string; enum?: string[] }> })?.properties ?? {};
  return Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, p.type === 'boolean' ? true : (p.enum?.[0] ?? 'x')]));
}

describe('SDK 1.32 server and client, in process', () => {
  let w: InProcess;
  const seen: Array<{ message: string }> = [];
  let client: Client;

  /** `ask {form}` asks the client the form (2025-11-25 elicitation) and says what came back. */
  const define = (server: McpServer, calls: Calls) => {
    server.registerTool('ask', { description: 'Asks the user.', inputSchema: { form: z.string() }, annotations: { readOnlyHint: true } }, async ({ form }) => {
      calls.list.push({ tool: 'ask', args: { form } });
      const answer = await server.server.elicitInput(JSON.parse(form) as Parameters<typeof server.server.elicitInput>[0]);
      return { content: [{ type: 'text', text: `answered: ${JSON.stringify(answer)}` }] };
    });
  };

  beforeAll(async () => {
    w = await startInProcess();
    await w.serve('forms', define, { trusted: true });
    client = await w.connect('forms', 'form-client', {
      capabilities: { elicitation: {} },
      setup: (c) =>
        c.setRequestHandler(ElicitRequestSchema, async (req) => {
          seen.push(req.params);
          return { action: 'accept', content: fitting((req.params as { requestedSchema?: unknown }).requestedSchema) as never };
        }),
    });
  });
  afterAll(async () => {
    await w?.close();
  });
  afterEach(() => void (seen.length = 0));

  const ask = async (form: Record<string, unknown>): Promise<string> =>
    textOf(await client.callTool({ name: 'ask', arguments: { form: JSON.stringify(form) } }));

  it("marks every server form with the server's name; with inline approval off, even a copy is relayed, marked", async () => {
    expect(await ask(BENIGN)).toBe('answered: {"action":"accept","content":{"confirm":true}}');
    expect(await ask(COPY)).toMatch(/^answered: \{"action":"accept"/);
    expect(seen.map((p) => p.message)).toEqual([MARK('forms') + BENIGN.message, MARK('forms') + COPY.message]);
  });

  it.each(IMITATIONS)("with inline approval on, declines a form that imitates Countersign's (%s), shows it nowhere, and logs it", async (what, form) => {
    await w.api.setInlineApproval('form-client', true);
    try {
      expect(await ask(form)).toBe('answered: {"action":"decline"}');
      expect(seen).toEqual([]);
      const entries = (await w.log({ server: 'forms' })).filter(
        (e: AuditEntry) => e.kind === 'server-request' && (e.arguments as { params: { message?: string } }).params.message === form.message,
      );
      expect(entries.at(-1), what).toMatchObject({ decision: 'deny', status: 'denied', client: 'form-client' });
      expect(entries.at(-1)!.detail).toMatch(/Declined for the server, not shown to the client: .*while approval inside 'form-client' is on/);
      // A plain form of the same server still reaches the person, marked.
      expect(await ask(BENIGN)).toMatch(/^answered: \{"action":"accept"/);
      expect(seen.map((p) => p.message)).toEqual([MARK('forms') + BENIGN.message]);
    } finally {
      await w.api.setInlineApproval('form-client', false);
    }
  });
});

/** A 1.32 client of the v2 server, answered the 2025-11-25 way. */
async function legacyClient(broker: TestBroker, via: Via, seen: Array<{ message: string }>): Promise<Client> {
  const client = new Client({ name: 'legacy-forms', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    seen.push(req.params);
    return { action: 'accept', content: fitting((req.params as { requestedSchema?: unknown }).requestedSchema) as never };
  });
  const transport =
    via === 'connect'
      ? new StdioClientTransport({ command: NODE, args: [CLI, 'connect', 'forms', '--data-dir', broker.dataDir], stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/forms`), { requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}` } } });
  await client.connect(transport);
  return client;
}

describe.each<Via>(['connect', 'http'])('the v2 packages via %s', (via) => {
  let broker: TestBroker;
  beforeAll(async () => {
    const dataDir = makeDataDir();
    configure(dataDir, { forms: { command: NODE, args: [`${ROOT}test/fixtures/v2-form-server.mjs`] } }, ['forms']);
    broker = await startServe(dataDir);
  });
  afterAll(async () => {
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
  });
  const ask = (c: { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> }, form: Record<string, unknown>) =>
    c.callTool({ name: 'ask_form', arguments: { form: JSON.stringify(form) } }) as Promise<ToolResult>;
  const declinedEntries = async (client: string) =>
    (await broker.api<AuditEntry[]>('queryLog', { server: 'forms' })).filter(
      (e) => e.kind === 'server-request' && e.decision === 'deny' && e.client === client,
    );

  it("2026-07-28 (a 2.4 client): input rounds come marked; a copy of Countersign's form ends the call while inline approval is on", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const client = await connectV2(broker, 'forms', via, {
      name: `modern-${via}`,
      elicit: (p) => (seen.push(p), { action: 'accept', content: fitting(p.requestedSchema) }),
    });
    try {
      expect(textOf(await ask(client, BENIGN))).toBe('answered: {"action":"accept","content":{"confirm":true}}');
      expect(seen.map((p) => p.message)).toEqual([MARK('forms') + BENIGN.message]);
      await broker.api('setInlineApproval', `modern-${via}`, true);
      for (const [, form] of IMITATIONS.slice(0, 3)) {
        const refused = await ask(client, form);
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/Countersign refused the server's request for input: .*approval inside this client is on/);
      }
      expect(seen).toHaveLength(1);
      const declined = await declinedEntries(`modern-${via}`);
      expect(declined).toHaveLength(3);
      expect(declined[0]!.tool).toBe('ask_form');
      // Turned off, the copy is relayed, marked: the person can tell whose question it is.
      await broker.api('setInlineApproval', `modern-${via}`, false);
      expect(textOf(await ask(client, COPY))).toMatch(/^answered: \{"action":"accept"/);
      expect(seen.at(-1)?.message).toBe(MARK('forms') + COPY.message);
    } finally {
      await client.close();
    }
  });

  it('2025-11-25 (a 1.32 client of the v2 server): requests come marked; a copy is declined for the server while inline approval is on', async () => {
    const seen: Array<{ message: string }> = [];
    const client = await legacyClient(broker, via, seen);
    try {
      expect(textOf(await ask(client, BENIGN))).toBe('answered: {"action":"accept","content":{"confirm":true}}');
      expect(seen.map((p) => p.message)).toEqual([MARK('forms') + BENIGN.message]);
      await broker.api('setInlineApproval', 'legacy-forms', true);
      expect(textOf(await ask(client, COPY))).toBe('answered: {"action":"decline"}');
      expect(seen).toHaveLength(1);
      // `connect` reports it a moment after.
      const declined = await pollUntil(
        () => declinedEntries('legacy-forms'),
        (found) => found.length > 0,
        'the declined form in the log',
      );
      expect(declined.at(-1)!.detail).toMatch(/its message asks "Approve … on …\?" as Countersign's form does/);
    } finally {
      await broker.api('setInlineApproval', 'legacy-forms', false);
      await client.close();
    }
  });
});
