import { describe, expect, it } from 'vitest';
import { parseHello } from '../../electron/broker/local/handshake.js';

describe('parseHello', () => {
  it('reads a session hello, with relay only when asked for', () => {
    expect(parseHello('{"countersign":1,"server":"fs","client":"cursor","relay":true}')).toEqual({
      countersign: 1,
      server: 'fs',
      client: 'cursor',
      agent: undefined,
      relay: true,
    });
    expect(parseHello('{"countersign":1,"server":"fs"}')).toEqual({ countersign: 1, server: 'fs', client: undefined, agent: undefined, relay: false });
    expect(parseHello('{"countersign":1,"server":"fs","relay":"yes"}')).toMatchObject({ relay: false });
  });

  it("reads the agent process connect found, and ignores an older connect's parent pid", () => {
    expect(parseHello('{"countersign":1,"server":"fs","agent":{"pid":4242,"start":"9001"}}')).toMatchObject({ agent: { pid: 4242, start: '9001' } });
    // `clientPid` was connect's parent: under npx a per-server launcher. It no longer names anything.
    expect(parseHello('{"countersign":1,"server":"fs","clientPid":42}')).toEqual({
      countersign: 1,
      server: 'fs',
      client: undefined,
      agent: undefined,
      relay: false,
    });
  });

  it('refuses a malformed client name or agent process', () => {
    expect(() => parseHello('{"countersign":1,"server":"fs","client":7}')).toThrow('bad client name');
    expect(() => parseHello('{"countersign":1,"server":"fs","client":""}')).toThrow('bad client name');
    expect(() => parseHello('{"countersign":1,"server":"fs","agent":{"pid":1,"start":"0"}}')).toThrow('bad agent process');
    expect(() => parseHello('{"countersign":1,"server":"fs","agent":{"pid":12,"start":5}}')).toThrow('bad agent process');
    expect(() => parseHello('{"countersign":1,"server":"fs","agent":"12"}')).toThrow('bad agent process');
  });

  it('reads a data connection by its attach token', () => {
    expect(parseHello('{"countersign":1,"attach":"abc_DEF-1"}')).toEqual({ countersign: 1, attach: 'abc_DEF-1' });
  });

  it('reads the proofs a hello carries: the connect secret, and the CLI nonce of an API hello', () => {
    expect(parseHello('{"countersign":1,"server":"fs","secret":"s3cret"}')).toMatchObject({ server: 'fs', secret: 's3cret' });
    const nonce = 'n'.repeat(43);
    expect(parseHello(`{"countersign":1,"api":true,"nonce":"${nonce}"}`)).toEqual({ countersign: 1, api: true, nonce });
    // An older CLI's hello: read, and refused by the broker for want of a proof.
    expect(parseHello('{"countersign":1,"api":true}')).toEqual({ countersign: 1, api: true });
    expect(() => parseHello('{"countersign":1,"api":true,"nonce":"short"}')).toThrow('bad nonce');
    expect(() => parseHello('{"countersign":1,"server":"fs","secret":7}')).toThrow('bad secret');
    expect(() => parseHello(`{"countersign":1,"server":"fs","secret":"${'x'.repeat(201)}"}`)).toThrow('bad secret');
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
