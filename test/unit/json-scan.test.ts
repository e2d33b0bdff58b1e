// The fast lane's scan must never vouch for a line JSON.parse would refuse, and must read the envelope
// exactly as JSON.parse does. Checked on hand-picked lines and on thousands of random mutations.
import { describe, expect, it } from 'vitest';
import { checkEnvelope } from '../../shared/jsonrpc.js';
import { scanEnvelope, withId } from '../../electron/broker/wire/json-scan.js';
import { idHint } from '../../electron/broker/wire/id-sniff.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

function parsed(line: Buffer): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Whatever the scan vouches for, JSON.parse reads the same way. */
function agrees(line: Buffer): void {
  const env = scanEnvelope(line);
  if (!env) return;
  const v = parsed(line);
  expect(v, line.toString()).toBeDefined();
  expect(env.method).toBe(v!.method);
  expect(env.id).toBe(v!.id);
  expect(env.hasResult).toBe('result' in v!);
  expect(env.hasError).toBe('error' in v!);
  expect(env.resultIsError).toBe((v!.result as { isError?: unknown } | undefined)?.isError === true);
  // What the fast lane passes (a request, or a result) is a valid envelope too.
  if (env.id !== undefined && (env.method !== undefined || env.hasResult)) expect(checkEnvelope(v), line.toString()).toMatchObject({ ok: true });
  if (env.id === undefined) return void expect(() => withId(line, env, '1')).toThrow();
  const moved = withId(line, env, '"moved ✓"');
  expect(moved.at(-1)).toBe(10);
  expect(JSON.parse(moved.subarray(0, -1).toString('utf8'))).toEqual({ ...v, id: 'moved ✓' });
}

describe('scanEnvelope', () => {
  it('reads requests and results as JSON.parse does, with the id span to replace', () => {
    const call = b('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a \\"b\\" \\u00e9"}}}');
    const env = scanEnvelope(call)!;
    expect(env).toMatchObject({ method: 'tools/call', id: 7, hasParams: true, hasResult: false });
    expect(withId(call, env, '12').toString()).toBe(call.toString().replace('"id":7', '"id":12') + '\n');
    expect(scanEnvelope(b(' { "result" : {"content":[],"isError" : true} , "id" : 3 , "jsonrpc":"2.0" } '))).toMatchObject({
      id: 3,
      hasResult: true,
      resultIsError: true,
    });
    expect(scanEnvelope(b('{"result":{"nested":{"isError":true}},"id":3,"jsonrpc":"2.0"}'))).toMatchObject({ resultIsError: false });
    expect(scanEnvelope(b('{"jsonrpc":"2.0","id":"a\\"b","method":"ping"}'))).toMatchObject({ id: 'a"b', method: 'ping' });
    expect(scanEnvelope(b('{"jsonrpc":"2.0","id":1e2,"method":"ping"}'))).toMatchObject({ id: 100 });
    for (const line of [
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":[1,2,{"y":null}],"z":-0.5e-3}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}',
    ])
      agrees(b(line));
  });

  it('leaves anything unusual to the ordinary path', () => {
    for (const line of [
      '',
      '   ',
      '[]',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      'null',
      '{}',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}', // null id
      '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', // repeated key
      '{"jsonrpc":"2.0","id":1,"method":"ping","x":1,"x":2}', // any key of the envelope repeated
      '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a","uri":"file:///b"}}', // a key of params repeated
      '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"\\u0075ri":"file:///a"}}', // a key of params with escapes
      '{"jsonrpc":"2.0","\\u0069d":1,"method":"ping"}', // a key spelled with escapes
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}',
      '{"jsonrpc":"2.0","id":1,"method":"ping"} x',
      '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"result":{"isError":true,"isError":false}}',
      '{"jsonrpc":"2.0","id":1,"method":"a\tb"}', // raw control character in a string
      '{"jsonrpc":"2.0","id":01,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":"ping",}',
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"deep":${'['.repeat(300)}${']'.repeat(300)}}}`,
    ])
      expect(scanEnvelope(b(line)), line).toBeUndefined();
  });

  it('never vouches for a line JSON.parse refuses, over thousands of random mutations', () => {
    const seeds = [
      '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hé \\n \\u2028","n":[1.5,-2e3,true,false,null]}}}',
      '{"result":{"content":[{"type":"text","text":"Echo: x"}],"isError":false},"jsonrpc":"2.0","id":5}',
      '{"jsonrpc":"2.0","id":"req-1","method":"resources/read","params":{"uri":"file:///tmp/a b"}}',
    ];
    const alphabet = '{}[]":,\\ tfnule0123456789.-+Eaz\u00e9';
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let vouched = 0;
    for (let round = 0; round < 6000; round++) {
      let s = seeds[round % seeds.length]!;
      for (let k = 1 + rand(3); k > 0; k--) {
        const at = rand(s.length + 1);
        const op = rand(3);
        const ch = alphabet[rand(alphabet.length)]!;
        s = op === 0 ? s.slice(0, at) + ch + s.slice(at) : op === 1 ? s.slice(0, at) + s.slice(at + 1) : s.slice(0, at) + ch + s.slice(at + 1);
      }
      const line = b(s);
      if (scanEnvelope(line)) vouched++;
      agrees(line);
    }
    // The mutations must also produce lines the scan accepts, or the check above proves nothing.
    expect(vouched).toBeGreaterThan(300);
  });
});

describe('idHint', () => {
  it('reads the id where servers usually write it, and is the parsed id whenever the line parses', () => {
    expect(idHint(b('{"result":{"content":[]},"jsonrpc":"2.0","id":42}\n'))).toBe(42);
    expect(idHint(b('{"jsonrpc":"2.0","id":7,"result":{}}'))).toBe(7);
    expect(idHint(b('{"jsonrpc":"2.0","result":{"x":{"id":5}}}'))).toBeUndefined();
    expect(idHint(b('{"jsonrpc":"2.0","result":{},"id":"s"}'))).toBeUndefined();
    expect(idHint(b('{"result":{},"xid":3}'))).toBeUndefined();
    // Random lines: a hint is only ever the id JSON.parse reads (or the line does not parse).
    const base = '{"result":{"content":[{"type":"text","text":"a,\\"id\\":9}"}]},"jsonrpc":"2.0","id":12}';
    for (let n = 0; n < 3000; n++) {
      const chars = [...base];
      const at = Math.floor(Math.random() * chars.length);
      if (n % 2) chars.splice(at, 1);
      else chars.splice(at, 0, '},"id":1234567890:"'[Math.floor(Math.random() * 18)]!);
      const line = b(chars.join(''));
      const hint = idHint(line);
      const v = parsed(line);
      if (hint !== undefined && v) expect(v.id, line.toString()).toBe(hint);
    }
  });
});
