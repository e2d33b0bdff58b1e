// Runs a real `countersign serve` child process on a temp data dir, plus real SDK clients for it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuditEntry, BrokerEvent, LogQuery, PendingCall, ServerConfig, ServerView } from '../../shared/api.js';
import { SettingsStore } from '../../electron/broker/store/settings-store.js';
import { launchHash } from '../../electron/broker/trust/launch-consent.js';
import { TrustStore } from '../../electron/broker/trust/trust-store.js';
import { GrantSeal } from '../../electron/broker/store/grant-seal.js';
import { CLI, NODE } from './paths.js';
import { PATIENCE_MS, pollUntil } from './patience.js';

export interface TestBroker {
  dataDir: string;
  baseUrl: string;
  apiToken: string;
  mcpToken: string;
  child: ChildProcess;
  stderr: () => string;
  /** Resolves with stderr once it matches: the broker's warnings arrive through a pipe, after the call that caused them. */
  stderrWhen(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The server's view once `ok` holds: the broker sees a hand-edited settings or policy file within 50 ms of a read. */
  serverWhen(name: string, ok: (view: ServerView) => boolean, timeoutMs?: number): Promise<ServerView>;
  api<T = unknown>(method: string, ...args: unknown[]): Promise<T>;
  waitForPending(match?: (c: PendingCall) => boolean, timeoutMs?: number): Promise<PendingCall>;
  /** The log entries for `query` once `ok` holds: `connect` reports calls a few ms after they end. */
  logWhen(query: LogQuery, ok: (entries: AuditEntry[]) => boolean, timeoutMs?: number): Promise<AuditEntry[]>;
  stop(): Promise<void>;
}

export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'cs-test-'));
}

/**
 * Adds servers as a person would: their command lines approved (launch consent), and `trusted` ones
 * trusted. Trust is recorded on the first listing, as when a person trusts a server not yet run.
 */
export function configure(dataDir: string, servers: Record<string, ServerConfig>, trusted: string[] = [], opts: { consent?: boolean } = {}): void {
  // Sealed as Countersign seals what a person grants (the same key folder as the broker the test starts).
  const seal = GrantSeal.open(dataDir, process.env, () => undefined);
  const { store } = SettingsStore.open({ dataDir, seal });
  const trust = TrustStore.open(dataDir, () => undefined, seal);
  for (const [name, config] of Object.entries(servers)) {
    store.addServer(name, config);
    if (opts.consent !== false) trust.update(name, (r) => (r.launch = { hash: launchHash(config), approvedAt: new Date().toISOString(), by: 'person' }));
  }
  for (const name of trusted) {
    store.setTrusted(name, true);
    trust.update(name, (r) => (r.recordNextListing = true));
  }
}

/**
 * `as`: a command the broker runs under, such as `setpriv --reuid=65534 …` (an unprivileged user);
 * `cwd`: the folder it starts in (where it looks for project client configs).
 */
export async function startServe(
  dataDir: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
  opts: { as?: string[]; cleanEnv?: boolean; cwd?: string } = {},
): Promise<TestBroker> {
  const argv = [NODE, CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--no-open', ...extra];
  const [file, ...args] = [...(opts.as ?? []), ...argv];
  const child = spawn(file!, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.cwd && { cwd: opts.cwd }),
    env: { ...(opts.cleanEnv ? {} : process.env), COUNTERSIGN_HOME: '', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const stderrWhen = (pattern: RegExp, timeoutMs = PATIENCE_MS): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (!pattern.test(stderr)) return false;
        clearTimeout(timer);
        child.stderr.off('data', onData);
        resolve(stderr);
        return true;
      };
      const onData = (): void => void check();
      const timer = setTimeout(() => {
        child.stderr.off('data', onData);
        reject(new Error(`stderr did not match ${pattern} within ${timeoutMs} ms: ${stderr}`));
      }, timeoutMs);
      // After the harness's own listener, so the text it checks holds the chunk that just came.
      if (!check()) child.stderr.on('data', onData);
    });
  const url = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), PATIENCE_MS);
    rl.on('line', (line) => {
      const m = /^Countersign UI: (\S+)$/.exec(line);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const parsed = new URL(url);
  const apiToken = parsed.hash.replace('#token=', '');
  const baseUrl = parsed.origin;
  const api = httpApi(baseUrl, apiToken);
  const waitForPending = pendingWaiter(api);
  const logWhen = async (query: LogQuery, ok: (entries: AuditEntry[]) => boolean, timeoutMs = PATIENCE_MS): Promise<AuditEntry[]> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const entries = await api<AuditEntry[]>('queryLog', query);
      if (ok(entries) || Date.now() > end) return entries;
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const serverWhen = async (name: string, ok: (view: ServerView) => boolean, timeoutMs = PATIENCE_MS): Promise<ServerView> =>
    (await pollUntil(
      async () => (await api<ServerView[]>('listServers')).find((s) => s.name === name),
      (view) => view !== undefined && ok(view),
      `server '${name}' to reach the expected state`,
      timeoutMs,
    ))!;
  return {
    dataDir,
    baseUrl,
    apiToken,
    mcpToken: readFileSync(join(dataDir, 'mcp-token'), 'utf8').trim(),
    child,
    stderr: () => stderr,
    stderrWhen,
    serverWhen,
    api,
    waitForPending,
    logWhen,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** The UI's API over HTTP, as the browser calls it (actor 'browser'). */
export function httpApi(baseUrl: string, apiToken: string): TestBroker['api'] {
  return async <T>(method: string, ...args: unknown[]): Promise<T> => {
    const res = await fetch(`${baseUrl}/api/rpc`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ method, args }),
    });
    const body = (await res.json()) as { ok: boolean; value?: T; error?: string };
    if (!body.ok) throw new Error(body.error);
    return body.value as T;
  };
}

export function pendingWaiter(api: TestBroker['api']): TestBroker['waitForPending'] {
  return async (match: (c: PendingCall) => boolean = () => true, timeoutMs = PATIENCE_MS): Promise<PendingCall> => {
    const pending = await pollUntil(
      () => api<PendingCall[]>('listPending'),
      (l) => l.some(match),
      'a pending call',
      timeoutMs,
    );
    return pending.find(match)!;
  };
}

export type Via = 'connect' | 'http';

export async function connectClient(
  broker: TestBroker,
  server: string,
  via: Via,
  opts: { sampling?: (req: unknown) => unknown; elicitation?: (req: unknown) => unknown } = {},
): Promise<Client> {
  const capabilities = { ...(opts.sampling ? { sampling: {} } : {}), ...(opts.elicitation ? { elicitation: {} } : {}) };
  const client = new Client({ name: 'countersign-test', version: '1.0.0' }, { capabilities });
  if (opts.sampling) {
    const { CreateMessageRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const handler = opts.sampling;
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => handler(req) as never);
  }
  if (opts.elicitation) {
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const handler = opts.elicitation;
    client.setRequestHandler(ElicitRequestSchema, async (req) => handler(req) as never);
  }
  const transport =
    via === 'connect'
      ? new StdioClientTransport({ command: NODE, args: [CLI, 'connect', server, '--data-dir', broker.dataDir], stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/${server}`), {
          requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}` } },
        });
  if (transport instanceof StdioClientTransport) {
    // What connect says goes to the test's stderr, so a connection that closes early shows why.
    transport.stderr?.on('data', (d: Buffer) => process.stderr.write(`[connect ${server}] ${d.toString()}`));
  }
  await client.connect(transport);
  return client;
}

/** Resolves once the event stream is open, so no event after this call is missed. */
export async function collectEvents(broker: TestBroker): Promise<{ events: BrokerEvent[]; stop(): void }> {
  const events: BrokerEvent[] = [];
  const ctrl = new AbortController();
  const res = await fetch(`${broker.baseUrl}/api/events`, { headers: { Authorization: `Bearer ${broker.apiToken}` }, signal: ctrl.signal });
  void (async () => {
    const reader = res.body!.getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += new TextDecoder().decode(value);
      let i;
      while ((i = buf.indexOf('\n\n')) !== -1) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (data) events.push(JSON.parse(data.slice(6)) as BrokerEvent);
      }
    }
  })().catch(() => undefined);
  return { events, stop: () => ctrl.abort() };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
