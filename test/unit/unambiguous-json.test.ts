// unambiguous(): bytes JSON.parse accepted pass on only when no parser could read them otherwise.
import { describe, expect, it } from 'vitest';
import { unambiguous, unambiguousRequest } from '../../electron/broker/wire/unambiguous-json.js';

const ok = (text: string) => {
  JSON.parse(text); // every case is JSON that JSON.parse accepts
  return unambiguous(Buffer.from(text));
};

describe('unambiguous', () => {
  it('accepts JSON in any layout whose numbers are written as JSON.stringify writes them', () => {
    expect(ok(' {"a":[1,-2,0.5,1e+21,-1.5e-7,true,false,null,{}],"b":{"a":{"a":"x"}},"c":"q\\"uo\\\\te \\u00e9 é"} ')).toBe(true);
    // The same key in different objects is no repeat.
    expect(ok('[{"k":1},{"k":2}]')).toBe(true);
    expect(ok('"plain"')).toBe(true);
  });

  it('refuses a key repeated at any depth, or any key spelled with escapes', () => {
    expect(ok('{"a":1,"a":1}')).toBe(false);
    expect(ok('{"x":[{"k":1,"y":{"z":0},"k":2}]}')).toBe(false);
    expect(ok('{"a":1,"\\u0061":2}')).toBe(false);
    expect(ok('{"\\n":1}')).toBe(false);
  });

  it('refuses numbers JSON.parse rounds or JSON.stringify would spell otherwise', () => {
    for (const n of ['1.0', '1e3', '1E+21', '-0', '0.10', '9007199254740993', '1e400', '12345678901234567890']) {
      expect(ok(`{"n":${n}}`), n).toBe(false);
    }
  });

  it('refuses nesting deeper than it looks', () => {
    expect(ok(`${'['.repeat(300)}${']'.repeat(300)}`)).toBe(false);
    expect(ok(`${'['.repeat(200)}${']'.repeat(200)}`)).toBe(true);
  });
});

describe('unambiguousRequest', () => {
  const read = (text: string) => {
    JSON.parse(text);
    return unambiguousRequest(Buffer.from(text));
  };

  it('finds the id and the method in one pass, wherever they are', () => {
    const text = ' { "params":{"a":"x\\"y"}, "id" : "q-1","method":"tools/call","jsonrpc":"2.0"} ';
    const found = read(text)!;
    expect(text.slice(found.idStart, found.idEnd)).toBe('"q-1"');
    expect(found.method).toBe('tools/call');
    expect(read('{"jsonrpc":"2.0","id":12,"method":"ping"}')).toMatchObject({ method: 'ping' });
  });

  it('refuses what unambiguous refuses, at the top as inside, and a method spelled with escapes is not named', () => {
    expect(read('{"id":1,"id":2,"method":"tools/call"}')).toBeUndefined();
    expect(read('{"id":1,"method":"tools/call","params":{"arguments":{"p":1,"p":2}}}')).toBeUndefined();
    expect(read('{"id":1,"method":"tools/call","params":{"arguments":{"n":1.0}}}')).toBeUndefined();
    expect(read('{"id":1,"method":"tools\\/call"}')!.method).toBeUndefined();
    expect(read('[{"id":1}]')).toBeUndefined();
  });

  it('reads long strings with and without escapes (the native search for the closing quote)', () => {
    const long = 'x'.repeat(100_000);
    expect(read(JSON.stringify({ id: 1, method: 'tools/call', params: { a: long, b: `${long}\\"${long}`, c: 'z' } }))).toMatchObject({ method: 'tools/call' });
    expect(read(`{"id":1,"method":"tools/call","params":{"a":"${long}\\\\","a":"${long}"}}`)).toBeUndefined();
  });
});
