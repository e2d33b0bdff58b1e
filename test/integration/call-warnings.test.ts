// The broker gathers the facts the warnings speak of (what this agent read, the files a call names),
// and the shared model words them: real SDK client and McpServers, in-process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callWarnings } from '../../shared/call-warnings.js';
import type { PendingCall } from '../../shared/api.js';
import { linkedPair } from '../helpers/linked-transport.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';

let world: InProcess;
let dir: string;
const clients: Client[] = [];

async function connectAs(server: string, clientKey: string): Promise<Client> {
  const [clientEnd, brokerEnd] = linkedPair();
  await world.broker.openSession(server, brokerEnd, clientKey);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(clientEnd as unknown as Transport);
  clients.push(client);
  return client;
}

const warningsOf = (c: PendingCall) =>
  callWarnings({
    server: c.server,
    tool: c.tool,
    trusted: c.serverTrusted,
    hints: c.hints,
    reasons: c.reasons.map((r) => r.code),
    arguments: c.arguments,
    findings: c.findings,
    facts: c.facts,
  });

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cs-warn-'));
  world = await startInProcess({ approvalTimeoutSeconds: 30 });
  await world.serve(
    'files',
    (s, calls) => {
      recordingTool(s, calls, 'read_file', { readOnlyHint: true, openWorldHint: false });
      recordingTool(s, calls, 'write_file', { readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    },
    { trusted: true },
  );
  await world.serve(
    'web',
    (s, calls) => {
      recordingTool(s, calls, 'post', { readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    },
    { trusted: true },
  );
});

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('warnings from what the broker found', () => {
  it('a send after a local read names the file read and the size sent; a closed-world write names the file it overwrites', async () => {
    const secret = join(dir, '.env');
    const notes = join(dir, 'notes.md');
    writeFileSync(secret, 'TOKEN=1');
    writeFileSync(notes, 'n'.repeat(2100));
    // One agent: both sessions carry the same client key, as two `connect`s of one client do.
    const files = await connectAs('files', 'agent-1');
    const web = await connectAs('web', 'agent-1');
    await files.callTool({ name: 'read_file', arguments: { path: secret } });

    const sent = web.callTool({ name: 'post', arguments: { text: 'z'.repeat(3000) } });
    const post = await world.waitForPending((c) => c.tool === 'post');
    expect(post.facts?.localReads).toEqual(['.env']);
    expect(warningsOf(post)[0]).toMatchObject({ code: 'exfiltration', title: 'Sends 3.0 kB to an open-world tool after reading .env' });
    await world.api.decide(post.id, { kind: 'deny' });
    await sent;

    // The trusted filesystem's own write is closed world: it asks (it writes), but it is no exfiltration.
    const wrote = files.callTool({ name: 'write_file', arguments: { path: notes, content: 'm'.repeat(2400) } });
    const write = await world.waitForPending((c) => c.tool === 'write_file');
    expect(write.facts?.targets).toEqual([{ key: 'path', path: notes, role: 'write', exists: true, bytes: 2100 }]);
    const ws = warningsOf(write);
    expect(ws.map((w) => w.code)).not.toContain('exfiltration');
    expect(ws[0]).toMatchObject({ code: 'overwrites', title: 'Overwrites notes.md (2.1 kB → 2.4 kB)', severity: 'danger' });
    await world.api.decide(write.id, { kind: 'deny' });
    await wrote;
  });

  it("a server that gives itself another configured server's name has it on the cards of its calls", async () => {
    // In-process servers call themselves `in-process-<id>`: `x` takes the name of the server `in-process-x`.
    await world.serve('x', (s, calls) => recordingTool(s, calls, 'bump', { readOnlyHint: false, destructiveHint: false, openWorldHint: false }));
    await world.serve('in-process-x', (s, calls) => recordingTool(s, calls, 'bump', { readOnlyHint: false, destructiveHint: false, openWorldHint: false }));
    const x = await connectAs('x', 'agent-2');
    const bumped = x.callTool({ name: 'bump', arguments: {} });
    const pending = await world.waitForPending((c) => c.server === 'x');
    expect(pending.findings.filter((f) => f.code === 'server-identity').map((f) => f.severity)).toEqual(['danger']);
    const ws = warningsOf(pending);
    expect(ws[0]).toMatchObject({ code: 'impersonation', short: "Calls itself 'in-process-x'" });
    // The server it imitates says nothing of the kind on its own cards.
    const other = await connectAs('in-process-x', 'agent-2');
    const honest = other.callTool({ name: 'bump', arguments: {} });
    const theirs = await world.waitForPending((c) => c.server === 'in-process-x');
    expect(warningsOf(theirs).map((w) => w.code)).not.toContain('impersonation');
    await world.api.decide(pending.id, { kind: 'deny' });
    await world.api.decide(theirs.id, { kind: 'deny' });
    await Promise.all([bumped, honest]);
  });
});
