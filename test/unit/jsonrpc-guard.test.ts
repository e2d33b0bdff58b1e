// The per-line checks both ways in share: UTF-8 on the bytes, no batches, a usable id or null.
import { describe, expect, it } from 'vitest';
import { guardLine, refusalFor } from '../../electron/broker/wire/jsonrpc-guard.js';

const line = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s) : s);

describe('guardLine', () => {
  it('passes a well-formed message', () => {
    expect(guardLine(line('{"jsonrpc":"2.0","id":1,"method":"ping"}'))).toEqual({ ok: true, message: { jsonrpc: '2.0', id: 1, method: 'ping' } });
  });

  it.each<[string, Buffer, number, string | number | null]>([
    [
      'invalid UTF-8, id still answered',
      Buffer.concat([line('{"jsonrpc":"2.0","id":"a","method":"x","params":{"t":"'), Buffer.from([0xc3, 0x28]), line('"}}')]),
      -32700,
      'a',
    ],
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

// The spellings JSON parsers disagree on: a client's message in any of them is refused, never read one
// way here and another by the server (or skipped by one parser and refused by another).
describe('guardLine on client input: what parsers disagree on', () => {
  const call = '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}';
  const utf16 = (text: string, bom: boolean, be = false) => {
    const le = Buffer.from(text, 'utf16le');
    const body = be ? Buffer.from(le.map((_, i) => le[i ^ 1]!)) : le;
    return bom ? Buffer.concat([Buffer.from(be ? [0xfe, 0xff] : [0xff, 0xfe]), body]) : body;
  };

  const spellings: Array<[string, Buffer, number, RegExp]> = [
    ['a UTF-8 byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), line(call)]), -32700, /byte order mark/],
    ['a byte order mark after whitespace', Buffer.concat([line(' \t'), Buffer.from([0xef, 0xbb, 0xbf]), line(call)]), -32700, /byte order mark/],
    ['UTF-16 LE with its BOM', utf16(call, true), -32700, /UTF-16/],
    ['UTF-16 BE with its BOM', utf16(call, true, true), -32700, /UTF-16/],
    ['UTF-16 LE without a BOM', utf16(call, false), -32700, /invalid JSON/],
    ['a NUL byte before the message', Buffer.concat([Buffer.from([0]), line(call)]), -32700, /invalid JSON/],
    ['a NUL byte after the message', Buffer.concat([line(call), Buffer.from([0])]), -32700, /invalid JSON/],
    ['a raw NUL inside a string', line(call.replace('hi', 'h\u0000i')), -32700, /invalid JSON/],
    ['a JSON string', line('"tools/call"'), -32600, /must be an object/],
    ['a number', line('9'), -32600, /must be an object/],
    ['null', line('null'), -32600, /must be an object/],
    ['true', line('true'), -32600, /must be an object/],
    ['method twice', line('{"jsonrpc":"2.0","id":9,"method":"ping","method":"tools/call","params":{"name":"echo"}}'), -32600, /"method" appears twice/],
    ['id twice', line('{"jsonrpc":"2.0","id":9,"id":10,"method":"ping"}'), -32600, /"id" appears twice/],
    ['a key twice, once spelled with escapes', line('{"jsonrpc":"2.0","id":9,"\\u006dethod":"ping","method":"tools/call"}'), -32600, /"method" appears twice/],
    [
      'params.name twice',
      line('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read","arguments":{},"name":"delete"}}'),
      -32600,
      /"params.name" appears twice/,
    ],
    [
      'params.arguments twice',
      line('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"a":1},"arguments":{"a":2}}}'),
      -32600,
      /"params.arguments" appears twice/,
    ],
    ['a tools/call without an id', line('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}'), -32600, /tools\/call needs an id/],
  ];

  it('refuses each of them with a reason', () => {
    for (const [what, bytes, code, reason] of spellings)
      expect(guardLine(bytes, true), what).toMatchObject({ ok: false, code, reason: expect.stringMatching(reason) });
  });

  it('still takes a repeated key below the envelope (unambiguous-json.ts keeps such bytes from passing as they are)', () => {
    expect(guardLine(line('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}}}'), true)).toMatchObject({ ok: true });
  });

  it('finds the envelope past values of any depth and strings with escaped quotes', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const tricky = JSON.stringify('a"},"id":3,\\'); // a quote, a brace and a backslash inside a string
    expect(guardLine(line(`{"jsonrpc":"2.0","x":${deep},"s":${tricky},"id":1,"method":"ping","id":2}`), true)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/"id" appears twice/),
    });
    expect(guardLine(line(`{"jsonrpc":"2.0","x":${deep},"s":${tricky},"id":1,"method":"ping"}`), true)).toMatchObject({ ok: true });
  });

  it("reads a server's line as before: a leading BOM dropped, a repeated key left to JSON.parse", () => {
    const result = '{"jsonrpc":"2.0","id":1,"result":{}}';
    expect(guardLine(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), line(result)]))).toMatchObject({ ok: true, message: { id: 1 } });
    expect(guardLine(line('{"jsonrpc":"2.0","id":1,"result":{},"x":1,"x":2}'))).toMatchObject({ ok: true });
  });

  it('keeps what a refused message held when it could be read, for the log', () => {
    const bom = guardLine(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), line(call)]), true);
    expect(bom).toMatchObject({ ok: false, id: 9, read: { value: { method: 'tools/call', params: { name: 'echo' } } } });
    const twice = guardLine(line('{"jsonrpc":"2.0","id":9,"method":"ping","method":"tools/call"}'), true);
    expect(twice).toMatchObject({ ok: false, id: 9 });
    expect(twice).not.toHaveProperty('read'); // read one way here, another there: not read at all
  });
});
