// The per-line checks both ways in share: UTF-8 on the bytes, no batches, a usable id or null.
import { describe, expect, it } from 'vitest';
import { guardLine, refusalFor } from '../../electron/broker/jsonrpc-guard.js';

const line = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s) : s);

describe('guardLine', () => {
  it('passes a well-formed message', () => {
    expect(guardLine(line('{"jsonrpc":"2.0","id":1,"method":"ping"}'))).toEqual({ ok: true, message: { jsonrpc: '2.0', id: 1, method: 'ping' } });
  });

  it.each<[string, Buffer, number, string | number | null]>([
    ['invalid UTF-8, id still answered', Buffer.concat([line('{"jsonrpc":"2.0","id":"a","method":"x","params":{"t":"'), Buffer.from([0xc3, 0x28]), line('"}}')]), -32700, 'a'],
    ['an overlong encoding', Buffer.from([0x7b, 0xc0, 0xaf, 0x7d]), -32700, null],
    ['not JSON', line('{"id": 7, nope'), -32700, 7],
    ['a batch', line('[{"jsonrpc":"2.0","id":1,"method":"ping"}]'), -32600, null],
    ['id null on a request', line('{"jsonrpc":"2.0","id":null,"method":"ping"}'), -32600, null],
    ['an object id', line('{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}'), -32600, null],
    ['no jsonrpc', line('{"id":3,"method":"ping"}'), -32600, 3],
  ])('refuses %s', (_what, bytes, code, id) => {
    const guarded = guardLine(bytes);
    expect(guarded).toMatchObject({ ok: false, code, id });
    if (!guarded.ok && !guarded.empty) expect(refusalFor(guarded)).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
  });

  it('skips a blank line without an answer', () => {
    expect(guardLine(line('  \r'))).toEqual({ ok: false, empty: true });
  });
});
