// Every call that reaches Countersign is in the audit log, the ones refused before any decision too, and
// no spelling JSON parsers disagree on reaches a server. Raw bytes through every way in: `connect` in
// relay mode (a stdio server), `connect` piping to the broker (a remote server), and HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { configure, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { EVERYTHING_SERVER, NODE, ROOT } from '../helpers/paths.js';
import { deepJson, RawConnect, rawHttpSession, rawPost } from '../helpers/raw-client.js';

type Via = 'connect' | 'pipe' | 'http';
type Answer = { id?: unknown; error?: { code: number; message: string }; result?: { isError?: boolean; content?: Array<{ text?: string }> } };

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const line = (id: unknown, tool: string, params: Record<string, unknown> = {}, args: string = '{"message":"x"}'): string => {
  const extra = Object.entries(params)
    .map(([k, v]) => `,${JSON.stringify(k)}:${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('');
  return `{"jsonrpc":"2.0",${id === undefined ? '' : `"id":${JSON.stringify(id)},`}"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${args}${extra}}}`;
};
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

interface Case {
  name: string;
  bytes: (tool: string) => string | Buffer;
  /** The answer's error code (a refused message) or 'result' (a refused call, answered as a tool error). */
  answer: number | 'result';
  /** How the log holds it: a call read, a message that may have been one, a call too deep to check. */
  logged: 'certain' | 'uncertain' | 'too-deep';
  /** What the answer (and the log's detail) says. */
  says: RegExp;
}

const CASES: Case[] = [
  { name: 'bom', bytes: (t) => Buffer.concat([BOM, Buffer.from(line('bom', t))]), answer: -32700, logged: 'certain', says: /byte order mark/ },
  {
    name: 'bom_ws',
    bytes: (t) => Buffer.concat([Buffer.from(' '), BOM, Buffer.from(line('bom2', t))]),
    answer: -32700,
    logged: 'certain',
    says: /byte order mark/,
  },
  {
    name: 'nul',
    bytes: (t) => Buffer.concat([Buffer.from([0]), Buffer.from(line('nul', t))]),
    answer: -32700,
    logged: 'uncertain',
    says: /invalid JSON|Parse error/,
  },
  { name: 'bad_json', bytes: (t) => line('bad', t).slice(0, -2), answer: -32700, logged: 'uncertain', says: /invalid JSON|Parse error/ },
  {
    name: 'bad_utf8',
    bytes: (t) => Buffer.from(line('utf8', t).replace('"x"', '"\u00ff"'), 'latin1'),
    answer: -32700,
    logged: 'uncertain',
    says: /not valid UTF-8/,
  },
  {
    name: 'dup_method',
    bytes: (t) => line('dup', t).replace('"method":"tools/call"', '"method":"ping","method":"tools/call"'),
    answer: -32600,
    logged: 'uncertain',
    says: /"method" appears twice/,
  },
  { name: 'dup_name', bytes: (t) => line('dup2', t, { name: '"echo"' }), answer: -32600, logged: 'uncertain', says: /"params.name" appears twice/ },
  { name: 'null_id', bytes: (t) => line(null, t), answer: -32600, logged: 'certain', says: /id must be a string or a number/ },
  { name: 'no_id', bytes: (t) => line(undefined, t), answer: -32600, logged: 'certain', says: /needs an id/ },
  { name: 'batch', bytes: (t) => `[${line('batched', t)}]`, answer: -32600, logged: 'certain', says: /batches are not supported/ },
  {
    name: 'deep_input',
    bytes: (t) => line('deep1', t, { inputResponses: `{"a":${deepJson(10_000)}}` }),
    answer: 'result',
    logged: 'too-deep',
    says: /'inputResponses' nests deeper than 64 levels/,
  },
  {
    name: 'deep_meta',
    bytes: (t) => line('deep2', t, { _meta: `{"a":${deepJson(100)}}` }),
    answer: 'result',
    logged: 'too-deep',
    says: /'_meta' nests deeper than 64 levels/,
  },
  {
    name: 'too_big',
    bytes: (t) => line('big', t, {}, `{"message":"${'x'.repeat(33 * 1024 * 1024)}"}`),
    answer: 0,
    logged: 'uncertain',
    says: /larger than the \d+.byte limit|exceeds the \d+-byte limit/,
  },
];

/** Refused before anything is read as a call: refused, and not logged (nothing in it was a call). */
const NOT_CALLS: Array<[string, string | Buffer, number]> = [
  ['a JSON string', '"tools/call"', -32600],
  ['null', 'null', -32600],
  ['a ping with a null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600],
];

describe('every call that reaches Countersign is in the log', () => {
  let broker: TestBroker;
  let remote: ChildProcess;

  beforeAll(async () => {
    remote = spawn(NODE, [`${ROOT}test/fixtures/http-fixture-server.mjs`], { stdio: ['pipe', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve) => {
      createInterface({ input: remote.stdout! }).on('line', (l) => {
        const m = /^listening (\d+)$/.exec(l);
        if (m) resolve(Number(m[1]));
      });
    });
    const dataDir = makeDataDir();
    configure(
      dataDir,
      {
        everything: { command: NODE, args: [EVERYTHING_SERVER] },
        asks: { command: NODE, args: [EVERYTHING_SERVER] },
        remote: { url: `http://127.0.0.1:${port}/mcp` },
      },
      ['everything', 'remote'],
    );
    broker = await startServe(dataDir);
  });

  afterAll(async () => {
    await broker?.stop();
    remote?.kill();
    removeDir(broker?.dataDir ?? '');
  });

  const refusedEntries = async (): Promise<AuditEntry[]> =>
    (await broker.api<AuditEntry[]>('queryLog', { decision: 'deny', limit: 10_000 })).filter(
      (e) => e.reasons.includes('refused-message') || e.reasons.includes('arguments-too-deep'),
    );

  /** A raw way in: `send` writes the bytes as one message and resolves with its answer. */
  async function openWay(via: Via): Promise<{ send(bytes: string | Buffer): Promise<{ status?: number; answer: Answer }>; close(): Promise<void> }> {
    if (via === 'http') {
      const session = await rawHttpSession(broker, 'everything');
      return {
        send: async (bytes) => {
          const res = await rawPost(broker, 'everything', typeof bytes === 'string' ? bytes : bytes, session);
          return { status: res.status, answer: (res.json.find((m) => typeof m === 'object' && m !== null && 'id' in m) ?? {}) as Answer };
        },
        close: async () => undefined,
      };
    }
    const raw = new RawConnect(broker.dataDir, via === 'pipe' ? 'remote' : 'everything');
    await raw.handshake();
    return {
      send: async (bytes) => {
        const before = raw.lines.length;
        raw.write(Buffer.concat([typeof bytes === 'string' ? Buffer.from(bytes) : bytes, Buffer.from('\n')]));
        const answer = await raw.next((m) => 'id' in m, 60_000, before);
        return { answer: answer as Answer };
      },
      close: () => raw.close(),
    };
  }

  describe.each<Via>(['connect', 'pipe', 'http'])('via %s', (via) => {
    it('refuses each spelling no parser agrees on, answers it, and logs every call among them', async () => {
      const way = await openWay(via);
      try {
        for (const c of CASES) {
          const tool = `${via}_${c.name}`;
          const { status, answer } = await way.send(c.bytes(tool));
          const text = answer.error?.message ?? answer.result?.content?.map((p) => p.text).join('') ?? '';
          if (c.answer === 'result') {
            expect(answer.result?.isError, `${tool}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(true);
          } else if (c.answer === 0) {
            expect(answer.error, tool).toBeDefined();
            if (via === 'http') expect(status).toBe(413);
          } else {
            expect(answer.error?.code, `${tool}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(c.answer);
            if (via === 'http') expect(status).toBe(400);
          }
          expect(text, tool).toMatch(c.says);
        }
        const entries = await broker.logWhen(
          { decision: 'deny', limit: 10_000 },
          (l) => CASES.every((c) => l.some((e) => e.tool === `${via}_${c.name}` || matchesUnnamed(e, via, c))),
          20_000,
        );
        for (const c of CASES) {
          const tool = `${via}_${c.name}`;
          const entry = entries.find((e) => e.tool === tool) ?? entries.find((e) => matchesUnnamed(e, via, c));
          expect(entry, `${tool} is not in the log`).toBeDefined();
          expect(entry).toMatchObject({ server: via === 'pipe' ? 'remote' : 'everything', decision: 'deny', decidedBy: 'policy', status: 'denied' });
          expect(entry!.detail).toMatch(c.says);
          if (c.logged === 'too-deep') {
            expect(entry!.reasons).toEqual(['arguments-too-deep']);
            expect(entry!.arguments).toEqual({ message: 'x' });
          } else {
            expect(entry!.reasons).toEqual(['refused-message']);
            expect(entry!.detail).toMatch(c.logged === 'certain' ? /^Countersign refused this call before deciding it/ : /may have been a tool call/);
            if (c.logged === 'certain') expect(entry!.arguments).toEqual({ message: 'x' });
          }
        }
        // A UTF-16 message is refused too; it names no tool any first bytes could tell.
        const { answer } = await way.send(utf16(line('u16', `${via}_utf16`)));
        expect(answer.error).toMatchObject({ code: -32700, message: expect.stringContaining('UTF-16') });

        // What is read as something else than a call is refused and not logged.
        const before = (await refusedEntries()).length;
        for (const [what, bytes, code] of NOT_CALLS) expect((await way.send(bytes)).answer.error?.code, what).toBe(code);
        expect((await way.send('{"jsonrpc":"2.0","id":"after","method":"tools/list"}')).answer.result).toBeDefined();
        expect((await refusedEntries()).length).toBe(before);

        // A call whose arguments parsers could read two ways (unambiguous-json.ts) is not refused: it is
        // decided, sent and logged as JSON.parse read it (the bytes never pass as they are).
        if (via !== 'pipe') {
          const ran = await way.send(line('amb', 'echo', {}, `{"message":"x","message":"${via} amb"}`));
          expect(ran.answer.result?.content?.[0]?.text).toBe(`Echo: ${via} amb`);
          await broker.logWhen({ tool: 'echo' }, (l) => l.some((e) => (e.arguments as { message?: string }).message === `${via} amb` && e.status === 'ok'));
        }
      } finally {
        await way.close();
      }
    }, 180_000);
  });

  it.each<Via>(['connect', 'http'])(
    'logs a call refused because its id is already in flight (via %s)',
    async (via) => {
      const tool = `${via}_in_use`;
      const waiting = line('busy', 'echo', {}, `{"message":"${via} waits"}`);
      const again = line('busy', tool);
      let decided: Promise<unknown>;
      let answer: Answer;
      if (via === 'http') {
        const session = await rawHttpSession(broker, 'asks');
        decided = rawPost(broker, 'asks', waiting, session);
        const pending = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === `${via} waits`);
        answer = (await rawPost(broker, 'asks', again, session)).json[0] as Answer;
        await broker.api('decide', pending.id, { kind: 'deny' });
      } else {
        const raw = new RawConnect(broker.dataDir, 'asks');
        await raw.handshake();
        raw.write(`${waiting}\n`);
        const pending = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === `${via} waits`);
        raw.write(`${again}\n`);
        answer = (await raw.next((m) => m.id === 'busy' && 'error' in m)) as Answer;
        await broker.api('decide', pending.id, { kind: 'deny' });
        decided = raw.next((m) => m.id === 'busy' && 'result' in m).finally(() => raw.close());
      }
      await decided;
      expect(answer.error).toMatchObject({ code: -32600, message: expect.stringContaining('already in') });
      const entries = await broker.logWhen({ tool }, (l) => l.length > 0);
      expect(entries).toMatchObject([{ server: 'asks', tool, decision: 'deny', reasons: ['refused-message'], arguments: { message: 'x' } }]);
      expect(entries[0]!.detail).toContain(`request id "busy" is already in`);
    },
    60_000,
  );
});

/** An unreadable message whose first bytes name no tool: found by its reason. */
function matchesUnnamed(e: AuditEntry, via: Via, c: Case): boolean {
  return (
    e.tool === '' && c.logged === 'uncertain' && c.name === 'too_big' && e.server === (via === 'pipe' ? 'remote' : 'everything') && c.says.test(e.detail ?? '')
  );
}
