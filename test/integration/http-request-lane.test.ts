// HTTP's request lane on a real `countersign serve`: an allowed tools/call reaches the (real, stdio) server
// as the client's own bytes with only the id changed (http/request-lane.ts); bytes another parser could
// read otherwise than the decision did (a repeated key, a key in escapes, a number JSON.parse rounds or
// spells otherwise) or that would not fit on one line are serialised again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, removeDir, type TestBroker } from '../helpers/broker-harness.js';
import { AMBIGUOUS_ARGUMENTS, rawBytesServe } from '../helpers/raw-client.js';

type Answer = { id: unknown; result: { isError?: boolean; content: Array<{ text: string }> } };

/** The line the server received for a `raw` call posted with `post`, and `body` with its id as the server got it. */
async function received(post: (body: string) => Promise<string>, body: string, clientId: string): Promise<{ line: string; expected: string }> {
  const answer = JSON.parse(await post(body)) as Answer;
  expect(answer.id).toBe(JSON.parse(clientId));
  const line = answer.result.content[0]!.text;
  const upId = (JSON.parse(line) as { id: unknown }).id;
  expect(typeof upId).toBe('number');
  return { line, expected: body.replace(`"id":${clientId}`, `"id":${String(upId)}`) };
}

describe('HTTP request lane', () => {
  let broker: TestBroker;
  let post: (body: string) => Promise<string>;
  const dataDir = makeDataDir();
  beforeAll(async () => {
    ({ broker, post } = await rawBytesServe(dataDir));
  });
  afterAll(async () => {
    await broker?.stop();
    removeDir(dataDir);
  });

  it("passes an allowed call to the server as the client's bytes, only its id changed, logged as decided", async () => {
    // Odd key order, spaces, escapes, numbers as JSON.stringify writes them, an empty array: none re-serialised.
    const body = `{ "params" : {"arguments":{"how":"raw", "n":1.5,"neg":-0.25,"big":12345678,"s":"caf\\u00e9 \\/ é \\ud83d\\ude00","o":{ "b" : 1, "a":[ ] }},"name":"say"}, "method":"tools/call","id":"q-1" ,"jsonrpc":"2.0" }`;
    const { line, expected } = await received(post, body, '"q-1"');
    expect(line).toBe(expected);
    const log = await broker.logWhen({ server: 'raw', tool: 'say' }, (e) => e.some((x) => (x.arguments as { s?: string }).s !== undefined));
    expect(log.at(-1)!.arguments).toEqual({ how: 'raw', n: 1.5, neg: -0.25, big: 12345678, s: 'caf\u00e9 / é \u{1f600}', o: { b: 1, a: [] } });
    expect(log.at(-1)).toMatchObject({ decision: 'allow', status: 'ok' });
  });

  it('serialises again what another parser could read otherwise than the decision did, or what spans lines', async () => {
    // And one spread over two lines, which stdio would split.
    const cases = [...AMBIGUOUS_ARGUMENTS, { args: `{"how":"raw",\n"n":2}`, seen: { how: 'raw', n: 2 } }];
    for (const [i, { args, seen }] of cases.entries()) {
      const body = `{"jsonrpc":"2.0","id":"a-${i}","method":"tools/call","params":{"name":"say","arguments":${args}}}`;
      const { line, expected } = await received(post, body, `"a-${i}"`);
      expect(line, args).not.toBe(expected);
      // What the server got is the parsed call written again: exactly what was decided and logged.
      const sent = JSON.parse(line) as { id: number; params: { arguments: unknown } };
      expect(line, args).toBe(JSON.stringify({ jsonrpc: '2.0', id: sent.id, method: 'tools/call', params: { name: 'say', arguments: seen } }));
    }
    const log = await broker.logWhen({ server: 'raw', tool: 'say' }, (e) => e.length >= cases.length + 1);
    expect(log.slice(-cases.length).map((e) => e.arguments)).toEqual(cases.map((c) => c.seen));
  });
});
