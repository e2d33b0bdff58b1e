// Raw bytes through the real ways in: `countersign connect`'s stdin and stdout, and POSTs to /mcp/<server>.
// For what an SDK client cannot send (invalid UTF-8, batches, null ids, 10,000-deep JSON).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { CLI, NODE } from './paths.js';
import { configure, startServe, type TestBroker } from './broker-harness.js';

/** A stdio server whose answers are written by hand, byte for byte (test/fixtures/raw-bytes-server.mjs). */
export const RAW_BYTES_SERVER = join(import.meta.dirname, '../fixtures/raw-bytes-server.mjs');

export const initRequest = (id: number | string, protocolVersion = '2025-11-25') =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
export const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** `[[[…"x"…]]]` nested `depth` times, as text (JSON.stringify itself overflows past ~8,000 levels). */
export const deepJson = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

type Message = Record<string, unknown>;

/** A `countersign connect` child fed raw bytes; every stdout line is kept (parsed when it is JSON). */
export class RawConnect {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  private waiters: Array<() => void> = [];
  stderr = '';

  constructor(dataDir: string, server: string, extraArgs: string[] = []) {
    this.child = spawn(NODE, [CLI, 'connect', server, '--data-dir', dataDir, ...extraArgs], { stdio: ['pipe', 'pipe', 'pipe'] });
    let buf = '';
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf('\n')) !== -1) {
        this.lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
  }

  write(data: string | Buffer): void {
    this.child.stdin!.write(data);
  }

  /** Sends initialize + initialized and waits for the answer. */
  async handshake(protocolVersion?: string): Promise<Message> {
    this.write(`${initRequest('init', protocolVersion)}\n`);
    const answer = await this.next((m) => m.id === 'init');
    this.write(`${initialized}\n`);
    return answer;
  }

  get messages(): unknown[] {
    return this.lines.map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return l;
      }
    });
  }

  /** The first message on stdout (from the start, or from line `from`) that matches. */
  async next(match: (m: Message) => boolean, timeoutMs = 20_000, from = 0): Promise<Message> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find((m): m is Message => typeof m === 'object' && m !== null && !Array.isArray(m) && match(m as Message));
      if (found) return found;
      if (Date.now() > end) throw new Error(`no matching message; got ${this.lines.map((l) => l.slice(0, 300)).join('\n')}\nstderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

function postMcp(broker: TestBroker, server: string, body: string | Buffer, session?: string): Promise<Response> {
  return fetch(`${broker.baseUrl}/mcp/${server}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${broker.mcpToken}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(session ? { 'Mcp-Session-Id': session } : {}),
    },
    body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
  });
}

/** One raw POST to /mcp/<server>; the answer's JSON (from a JSON body or the SSE data lines). */
export async function rawPost(
  broker: TestBroker,
  server: string,
  body: string | Buffer,
  session?: string,
): Promise<{ status: number; session?: string; json: unknown[] }> {
  const res = await postMcp(broker, server, body, session);
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as unknown)
    : text
      ? [JSON.parse(text) as unknown]
      : [];
  return { status: res.status, session: res.headers.get('mcp-session-id') ?? undefined, json };
}

/** One POST of `body` exactly as given to /mcp/<server> in `session`: its answer's one SSE data line, as sent. */
export async function postForSseLine(broker: TestBroker, server: string, session: string, body: string): Promise<string> {
  const res = await postMcp(broker, server, body, session);
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) throw new Error(`not an event stream: ${res.status} ${await res.text()}`);
  const data = (await res.text()).split('\n').filter((l) => l.startsWith('data: '));
  if (data.length !== 1) throw new Error(`expected one data line, got ${data.length}`);
  return data[0]!.slice('data: '.length);
}

/**
 * Arguments JSON.parse reads one way and another parser could read another (a repeated key, a key in
 * escapes, a number JSON.parse rounds or spells otherwise), each with what JSON.parse makes of it.
 */
export const AMBIGUOUS_ARGUMENTS: ReadonlyArray<{ args: string; seen: Record<string, unknown> }> = [
  // Decided on the last "path"; a server that keeps the first key would read another file.
  { args: `{"how":"raw","path":"~/.ssh/id_rsa","path":"/tmp/x"}`, seen: { how: 'raw', path: '/tmp/x' } },
  { args: `{"how":"raw","o":{"p":1,"p":2}}`, seen: { how: 'raw', o: { p: 2 } } },
  { args: `{"how":"raw","\\u0070":"x"}`, seen: { how: 'raw', p: 'x' } },
  { args: `{"how":"raw","n":1.0}`, seen: { how: 'raw', n: 1 } },
  { args: `{"how":"raw","n":9007199254740993}`, seen: { how: 'raw', n: 9007199254740992 } },
  { args: `{"how":"raw","n":1e3}`, seen: { how: 'raw', n: 1000 } },
];

/**
 * A real `countersign serve` on `dataDir` with the raw-bytes fixture server (trusted) as `raw`, an HTTP
 * session open on it and its tools listed; `post` sends a body exactly as given and returns the answer's
 * SSE data line as sent.
 */
export async function rawBytesServe(dataDir: string): Promise<{ broker: TestBroker; post(body: string): Promise<string> }> {
  configure(dataDir, { raw: { command: NODE, args: [RAW_BYTES_SERVER] } }, ['raw']);
  const broker = await startServe(dataDir);
  const session = await rawHttpSession(broker, 'raw');
  const post = (body: string): Promise<string> => postForSseLine(broker, 'raw', session, body);
  await post(JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: {} }));
  return { broker, post };
}

/** Opens an HTTP session as a raw client would; returns its id. */
export async function rawHttpSession(broker: TestBroker, server: string): Promise<string> {
  const opened = await rawPost(broker, server, initRequest('init'));
  if (!opened.session) throw new Error(`no session: ${opened.status} ${JSON.stringify(opened.json)}`);
  await rawPost(broker, server, initialized, opened.session);
  return opened.session;
}
