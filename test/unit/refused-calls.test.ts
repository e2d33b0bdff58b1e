// Which refused messages go to the log as calls: every call read in one, and every message that could
// not be read (it may have been a call); never a message read as something else.
import { describe, expect, it } from 'vitest';
import { guardLine, type Refused } from '../../electron/broker/wire/jsonrpc-guard.js';
import { MAX_REFUSED_PER_MESSAGE, refusedCallEntry, refusedCalls } from '../../electron/broker/relay/protocol/refused-calls.js';
import { MAX_ARGUMENT_DEPTH } from '../../electron/broker/checks/argument-depth.js';

const refused = (text: string | Buffer): Refused => {
  const g = guardLine(typeof text === 'string' ? Buffer.from(text) : text, true);
  if (g.ok || g.empty) throw new Error('not refused');
  return g;
};
const call = (id: unknown, args: unknown = { message: 'hi' }) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: args } });

describe('refusedCalls', () => {
  it('logs a call it read, with its tool and arguments', () => {
    expect(refusedCalls(refused(JSON.stringify(call(null))))).toEqual([
      { tool: 'echo', arguments: { message: 'hi' }, certain: true, reason: 'id must be a string or a number' },
    ]);
    const bom = refusedCalls(refused(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(call(1)))])));
    expect(bom).toMatchObject([{ tool: 'echo', certain: true, reason: expect.stringContaining('byte order mark') }]);
  });

  it('logs each call of a batch, up to a limit, and counts the rest', () => {
    const batch = Array.from({ length: MAX_REFUSED_PER_MESSAGE + 5 }, (_, i) => call(i));
    const logged = refusedCalls(refused(JSON.stringify([{ jsonrpc: '2.0', id: 'p', method: 'ping' }, ...batch])));
    expect(logged).toHaveLength(MAX_REFUSED_PER_MESSAGE);
    expect(logged.at(-1)!.reason).toContain('and 5 more calls in the same message');
  });

  it('logs a message it could not read as a call it may have been, with the tool its first bytes name', () => {
    expect(refusedCalls(refused('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"x"'))).toEqual([
      {
        tool: 'write_file',
        arguments: { countersign: 'arguments not recorded: the message could not be read' },
        certain: false,
        reason: expect.stringMatching(/^invalid JSON/),
      },
    ]);
    expect(refusedCalls(refused(Buffer.from([0x7b, 0xff, 0x7d])))).toMatchObject([{ tool: '', certain: false }]);
    // A repeated envelope key: read one way here and another by the server, so not read at all.
    expect(refusedCalls(refused('{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"rm"}}'))).toMatchObject([
      { tool: 'rm', certain: false },
    ]);
  });

  it('does not log a message read as something else than a call', () => {
    expect(refusedCalls(refused('{"jsonrpc":"2.0","id":null,"method":"ping"}'))).toEqual([]);
    expect(refusedCalls(refused('[{"jsonrpc":"2.0","id":1,"method":"ping"}]'))).toEqual([]);
    expect(refusedCalls(refused('"tools/call"'))).toEqual([]);
  });

  it('keeps a note instead of arguments nested too deep to log', () => {
    const deep = JSON.parse(`${'['.repeat(MAX_ARGUMENT_DEPTH + 5)}${']'.repeat(MAX_ARGUMENT_DEPTH + 5)}`) as unknown;
    const [logged] = refusedCalls(refused(JSON.stringify(call(null, { x: deep }))));
    expect(JSON.stringify(logged!.arguments)).toContain('not recorded');
  });

  it('writes an entry denied by Countersign, before any decision, that says why', () => {
    const [c] = refusedCalls(refused(JSON.stringify(call(null))));
    expect(refusedCallEntry('fs', 'claude', c!)).toMatchObject({
      server: 'fs',
      tool: 'echo',
      client: 'claude',
      decision: 'deny',
      decidedBy: 'policy',
      status: 'denied',
      reasons: ['refused-message'],
      detail: 'Countersign refused this call before deciding it: id must be a string or a number. It was not run.',
    });
  });
});
