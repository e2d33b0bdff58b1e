// `connect`'s fast lane on real processes: a call under a lease reaches the (real, stdio) server as the
// client's own bytes with only the id changed; bytes another parser could read otherwise than the lease's
// checks did (a repeated key, a key in escapes, a number JSON.parse rounds or spells otherwise) are
// serialised again, so the server runs exactly the call that was checked and logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configure, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { AMBIGUOUS_ARGUMENTS, RAW_BYTES_SERVER, RawConnect } from '../helpers/raw-client.js';
import { NODE } from '../helpers/paths.js';

type Answer = { id: unknown; result: { content: Array<{ text: string }> } };

describe('connect request bytes', () => {
  let broker: TestBroker | undefined;
  let relay: RawConnect | undefined;
  const dataDir = makeDataDir();

  /** The line the server received for the call `body` (whose id is `"<clientId>"`), and `body` with the server's id. */
  async function received(body: string, clientId: string): Promise<{ line: string; expected: string }> {
    relay!.write(`${body}\n`);
    const answer = (await relay!.next((m) => m.id === clientId)) as unknown as Answer;
    const line = answer.result.content[0]!.text;
    const upId = (JSON.parse(line) as { id: unknown }).id;
    expect(typeof upId).toBe('number');
    return { line, expected: body.replace(`"id":"${clientId}"`, `"id":${String(upId)}`) };
  }

  beforeAll(async () => {
    configure(dataDir, { raw: { command: NODE, args: [RAW_BYTES_SERVER] } }, ['raw']);
    broker = await startServe(dataDir);
    relay = new RawConnect(dataDir, 'raw');
    await relay.handshake();
    relay.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: {} })}\n`);
    await relay.next((m) => m.id === 'list');
  });
  afterAll(async () => {
    try {
      await relay?.close();
      await broker?.stop();
    } finally {
      removeDir(dataDir);
    }
  });

  it("passes a leased call as the client's bytes, and serialises again what another parser could read otherwise", async () => {
    // The broker decides the first calls and grants a lease (the first read of local data ends the one
    // given before it); the calls after them run under that lease.
    for (const id of ['w-1', 'w-2'])
      await received(`{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"say","arguments":{"how":"raw"}}}`, id);
    const plain = `{ "params" : {"arguments":{"how":"raw", "n":1.5,"s":"caf\\u00e9 \\/ é","o":{ "b" : 1, "a":[ ] }},"name":"say"}, "method":"tools/call","id":"q-1" ,"jsonrpc":"2.0" }`;
    const lane = await received(plain, 'q-1');
    expect(lane.line).toBe(lane.expected);

    const cases = AMBIGUOUS_ARGUMENTS;
    for (const [i, { args, seen }] of cases.entries()) {
      const body = `{"jsonrpc":"2.0","id":"a-${i}","method":"tools/call","params":{"name":"say","arguments":${args}}}`;
      const { line, expected } = await received(body, `a-${i}`);
      expect(line, args).not.toBe(expected);
      const sent = JSON.parse(line) as { id: number };
      expect(line, args).toBe(JSON.stringify({ jsonrpc: '2.0', id: sent.id, method: 'tools/call', params: { name: 'say', arguments: seen } }));
    }
    const log = await broker!.logWhen({ server: 'raw', tool: 'say' }, (e) => e.length >= cases.length + 3);
    expect(log.slice(-cases.length).map((e) => e.arguments)).toEqual(cases.map((c) => c.seen));
    // Leased, not asked: the lane was open for all of them.
    expect(log.slice(-cases.length - 1).every((e) => e.decision === 'allow')).toBe(true);
  });
});
