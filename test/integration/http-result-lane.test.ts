// HTTP's result lane on a real `countersign serve`: a server's result reaches the HTTP client as the
// server's own bytes with only the id changed (http/result-lane.ts), each call logged before its answer
// goes out; a line the lane does not vouch for (a CR inside) is re-serialised by the ordinary path; and
// when the log refuses the entry, the client hears the call ran unlogged instead of the bytes.
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../electron/broker/audit/audit-log.js';
import { makeDataDir, removeDir, type TestBroker } from '../helpers/broker-harness.js';
import { rawBytesServe } from '../helpers/raw-client.js';

const call = (id: number | string, how: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'say', arguments: { how } } });

describe('HTTP result lane', () => {
  let broker: TestBroker;
  let postRaw: (body: string) => Promise<string>;
  const dataDir = makeDataDir();
  /** One POST; the raw SSE data line of its answer. */
  const post = (body: unknown): Promise<string> => postRaw(JSON.stringify(body));
  beforeAll(async () => {
    ({ broker, post: postRaw } = await rawBytesServe(dataDir));
  });
  afterAll(async () => {
    await broker?.stop();
    removeDir(dataDir);
  });

  it("passes a call's result as the server's bytes with the client's id, logged before it goes out", async () => {
    const text = '"caf\\u00e9 \\ud83d\\ude00 exact"';
    expect(await post(call('c-1', 'exact'))).toBe(`{"result":{"content":[{"type":"text","text":${text}}],"zeta":1.50,"alpha":[ ]},"id":"c-1","jsonrpc":"2.0"}`);
    expect(await post(call(7, 'error'))).toBe(
      `{"result":{"isError":true,"content":[{"type":"text","text":${text.replace('exact', 'error')}}],"zeta":1.50},"id":7,"jsonrpc":"2.0"}`,
    );
    const log = await broker.logWhen({ server: 'raw', tool: 'say' }, (e) => e.length >= 2);
    expect(log.map((e) => [e.decision, e.status, (e.arguments as { how: string }).how])).toEqual([
      ['allow', 'ok', 'exact'],
      ['allow', 'error', 'error'],
    ]);
  });

  it('re-serialises a line with a CR inside (SSE would split it): the ordinary path', async () => {
    const data = await post(call('c-2', 'cr'));
    expect(JSON.parse(data)).toEqual({ jsonrpc: '2.0', id: 'c-2', result: { content: [{ type: 'text', text: 'café 😀 cr' }], zeta: 1.5 } });
    expect(data).not.toContain('1.50');
  });

  it('answers "ran but not logged" instead of the bytes when the log refuses the entry, then refuses new calls', async () => {
    const before = (await broker.logWhen({ server: 'raw', tool: 'say' }, () => true)).length;
    const file = join(dataDir, 'audit.jsonl');
    const root = process.getuid?.() === 0;
    if (root) execFileSync('chattr', ['+i', file]);
    else chmodSync(file, 0o444);
    try {
      const ran = JSON.parse(await post(call('c-3', 'exact'))) as { result: { isError?: boolean; content: Array<{ text: string }> } };
      expect(ran.result.isError).toBe(true);
      expect(ran.result.content[0]!.text).toMatch(/^Countersign ran this call but could not write it to its audit log, so its answer is withheld\./);
      const refused = JSON.parse(await post(call('c-4', 'exact'))) as { result: { isError?: boolean; content: Array<{ text: string }> } };
      expect(refused.result.isError).toBe(true);
      expect(refused.result.content[0]!.text).toMatch(/It was not run\./);
    } finally {
      if (root) execFileSync('chattr', ['-i', file]);
      else chmodSync(file, 0o600);
    }
    // Retried every few seconds: both entries land, in order, and the chain is whole.
    const log = await broker.logWhen({ server: 'raw', tool: 'say' }, (e) => e.length >= before + 2, 10_000);
    expect(log.slice(before).map((e) => [e.status, (e.arguments as { how: string }).how])).toEqual([
      ['ok', 'exact'],
      ['denied', 'exact'],
    ]);
    expect(AuditLog.open(dataDir).log.verify()).toMatchObject({ ok: true, problems: [] });
  });
});
