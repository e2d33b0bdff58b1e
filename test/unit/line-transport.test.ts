import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport, type BadLine } from '../../electron/broker/wire/line-transport.js';
import type { JsonRpcMessage } from '../../shared/jsonrpc.js';

function setup(max?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const got: JsonRpcMessage[] = [];
  const bad: BadLine[] = [];
  const t = new LineTransport({ input, output, maxMessageBytes: max, onBadLine: (b) => bad.push(b) });
  t.onmessage = (m) => got.push(m);
  return { input, output, got, bad, t };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('LineTransport', () => {
  it('reassembles messages split across chunks and several per chunk, keeping unknown fields', async () => {
    const { input, got, t } = setup();
    await t.start();
    input.write('{"jsonrpc":"2.0","id":1,"met');
    input.write('hod":"a","future":{"x":1}}\n{"jsonrpc":"2.0","method":"n"}\n\n{"jsonrpc":"2.0","id":"z","result":{}}');
    input.write('\n');
    await tick();
    expect(got).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'a', future: { x: 1 } },
      { jsonrpc: '2.0', method: 'n' },
      { jsonrpc: '2.0', id: 'z', result: {} },
    ]);
  });

  it('reports an oversize line with its id without buffering it, then carries on', async () => {
    const { input, got, bad, t } = setup(1000);
    await t.start();
    input.write('{"jsonrpc":"2.0","id":"big","method":"x","params":{"v":"');
    for (let i = 0; i < 50; i++) input.write('y'.repeat(1000));
    input.write('"}}\n{"jsonrpc":"2.0","id":2,"method":"ok"}\n');
    await tick();
    expect(bad).toEqual([
      { reason: 'message is larger than the 1000 byte limit', id: 'big', code: -32600, head: expect.stringMatching(/^\{"jsonrpc":"2.0","id":"big"/) },
    ]);
    expect(got).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ok' }]);
  });

  it('reports invalid JSON and bad envelopes with whatever id it can read', async () => {
    const { input, bad, t } = setup();
    await t.start();
    input.write('{"id": 5, "jsonrpc": "2.0", "method": \n{"jsonrpc":"2.0","id":6,"method":3}\n');
    await tick();
    expect(bad[0]).toMatchObject({ id: 5, code: -32700, reason: expect.stringMatching(/^invalid JSON/) });
    expect(bad[1]).toMatchObject({ id: 6, reason: 'method must be a string', code: -32600, read: { value: { jsonrpc: '2.0', id: 6, method: 3 } } });
  });

  it('writes one line per message and closes once on end', async () => {
    const { input, output, t } = setup();
    let closes = 0;
    t.onclose = () => closes++;
    await t.start();
    let written = '';
    output.on('data', (c: Buffer) => (written += c.toString()));
    await t.send({ jsonrpc: '2.0', id: 1, result: { a: 'line\nbreak' } });
    input.end();
    await tick();
    await t.close();
    expect(written).toBe('{"jsonrpc":"2.0","id":1,"result":{"a":"line\\nbreak"}}\n');
    expect(closes).toBe(1);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/closed/);
  });
});
