import { describe, expect, it } from 'vitest';
import { parseHello } from '../../electron/broker/local-handshake.js';

describe('parseHello', () => {
  it('reads a session hello, with relay only when asked for', () => {
    expect(parseHello('{"countersign":1,"server":"fs","clientPid":42,"relay":true}')).toEqual({ countersign: 1, server: 'fs', clientPid: 42, relay: true });
    expect(parseHello('{"countersign":1,"server":"fs"}')).toEqual({ countersign: 1, server: 'fs', clientPid: undefined, relay: false });
    expect(parseHello('{"countersign":1,"server":"fs","relay":"yes"}')).toMatchObject({ relay: false });
  });

  it('reads a data connection by its attach token', () => {
    expect(parseHello('{"countersign":1,"attach":"abc_DEF-1"}')).toEqual({ countersign: 1, attach: 'abc_DEF-1' });
  });

  it('refuses what is not a hello, with a reason', () => {
    expect(() => parseHello('{"countersign":2,"server":"fs"}')).toThrow('unsupported handshake version 2');
    expect(() => parseHello('{"countersign":1}')).toThrow('handshake has no server name');
    expect(() => parseHello('{"countersign":1,"attach":""}')).toThrow('bad attach token');
    expect(() => parseHello(`{"countersign":1,"attach":"${'x'.repeat(201)}"}`)).toThrow('bad attach token');
    expect(() => parseHello('[1]')).toThrow('unsupported handshake version');
    expect(() => parseHello('not json')).toThrow();
  });
});
