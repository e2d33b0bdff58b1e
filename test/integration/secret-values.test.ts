// A credential in a call's arguments: the broker puts a finding on the waiting call (never quoting the
// value), the audit log keeps the full arguments (it is the record), and `countersign log` prints them
// masked unless asked for them raw. Real SDK client and McpServer in-process; the real CLI on its log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { pendingCallWarnings } from '../../shared/call-warnings.js';
import { runCli } from '../helpers/cli-run.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';

// Made-up values of the right shapes.
const GITHUB = `ghp_${'aB3dE5gH7j'.repeat(4)}`;
const BEARER = `Bearer ${'Zq8'.repeat(14)}`;
const PASSWORD = 'correct horse battery staple';

let world: InProcess;

beforeEach(async () => {
  world = await startInProcess({ approvalTimeoutSeconds: 30 });
  await world.serve(
    'web',
    (s, calls) => {
      recordingTool(s, calls, 'post', { readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    },
    { trusted: true },
  );
});

afterEach(async () => {
  await world.close();
});

describe('secrets in arguments', () => {
  it('are a finding on the waiting call, stay whole in the log file, and are masked by `countersign log`', async () => {
    const client = await world.connect('web');
    const args = { headers: { Authorization: BEARER }, text: `deploy with ${GITHUB}`, password: PASSWORD, count: 3 };
    const sent = client.callTool({ name: 'post', arguments: args });
    sent.catch(() => undefined); // awaited below; a failure before then must not also be unhandled
    const call = await world.waitForPending((c) => c.tool === 'post');

    const found = call.findings.filter((f) => f.code === 'secret-value');
    expect(found.map((f) => f.message)).toEqual([
      'The argument "Authorization" looks like a bearer token: it goes to the server with this call.',
      'The argument "text" looks like a GitHub token (ghp_…): it goes to the server with this call.',
    ]);
    expect(JSON.stringify(found)).not.toContain(GITHUB);
    expect(JSON.stringify(found)).not.toContain(BEARER.slice(7));
    // The card says so in its words, and still shows the arguments themselves.
    const lines = pendingCallWarnings(call).filter((w) => w.code === 'scan' && w.short === 'Secret in the arguments');
    expect(lines).toHaveLength(2);
    expect(call.arguments).toEqual(args);

    await world.api.decide(call.id, { kind: 'deny' });
    await sent;
    const [entry] = await world.log({ tool: 'post' });
    expect(entry?.arguments).toEqual(args);
    const file = readFileSync(join(world.dataDir, 'audit.jsonl'), 'utf8');
    for (const secret of [GITHUB, BEARER, PASSWORD]) expect(file).toContain(secret);

    const json = await runCli(world.dataDir, 'log', '--json');
    expect(json.code).toBe(0);
    for (const secret of [GITHUB, BEARER.slice(7), PASSWORD]) expect(json.stdout).not.toContain(secret);
    const posted = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry)
      .find((e) => e.tool === 'post');
    expect(posted?.arguments).toEqual({
      headers: { Authorization: '[masked: the name "Authorization" suggests a secret]' },
      text: 'deploy with [masked: a GitHub token (ghp_…)]',
      password: '[masked: the name "password" suggests a secret]',
      count: 3,
    });

    const plain = await runCli(world.dataDir, 'log');
    expect(plain.stdout).toContain('[masked: a GitHub token (ghp_…)]');
    for (const secret of [GITHUB, PASSWORD]) expect(plain.stdout).not.toContain(secret);

    const raw = await runCli(world.dataDir, 'log', '--json', '--show-secrets');
    const rawPost = raw.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry)
      .find((e) => e.tool === 'post');
    expect(rawPost?.arguments).toEqual(args);
    // Masking is display only: the log's hash chain is untouched.
    expect((await runCli(world.dataDir, 'log', '--verify')).code).toBe(0);
  });
});
