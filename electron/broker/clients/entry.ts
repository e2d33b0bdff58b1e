// What one server entry of a client's file means: how the client starts it, whether that goes through
// Countersign, and the launch Countersign would take over, or why it cannot.
import path from 'node:path';
import type { ServerConfig } from '../../../shared/api.js';
import type { ClientServerView } from '../../../shared/clients.js';
import type { ClientDef } from './catalogue.js';
import { isPlainObject } from './config-format.js';
import { parseCountersignArgv, type CountersignRef } from './countersign-entry.js';
import { resolvePlaceholders, type PlaceholderContext } from './placeholders.js';

export interface EntryContext extends PlaceholderContext {
  client: ClientDef;
  /** The folder the client starts a project's servers in, when the entry names no cwd. */
  defaultCwd?: string;
}

export interface Interpreted {
  view: Omit<ClientServerView, 'name' | 'group' | 'state' | 'countersignServer' | 'note'>;
  through?: CountersignRef;
  /** What Countersign would store; undefined when wrap must refuse (`problem`). */
  config?: ServerConfig;
  problem?: string;
  /** Keys wrap takes out of the entry: they move into Countersign with the server. */
  moved: string[];
}

/** Keys that make the client compute part of the launch itself, which Countersign cannot repeat. */
const CLIENT_SIDE: Record<string, string> = {
  envFile: 'reads an env file (envFile) when the client starts it',
  env_vars: 'passes variables from the client\'s own environment (env_vars)',
  bearer_token_env_var: 'takes its token from the client\'s environment (bearer_token_env_var)',
  env_http_headers: 'takes header values from the client\'s environment (env_http_headers)',
  headersHelper: 'runs a helper to compute its headers (headersHelper)',
  oauth: 'signs in with OAuth through the client, which Countersign does not do for remote servers',
  authProviderType: 'signs in through the client (authProviderType)',
};

const stringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const stringMap = (v: unknown): v is Record<string, string> => isPlainObject(v) && Object.values(v).every((s) => typeof s === 'string');

export function interpretEntry(raw: unknown, ctx: EntryContext): Interpreted {
  const empty = { envNames: [], headerNames: [] };
  if (!isPlainObject(raw)) return { view: { transport: 'stdio', ...empty }, problem: 'the entry is not an object', moved: [] };
  const urlKey = ctx.client.urlKeys.find((k) => typeof raw[k] === 'string');
  if (typeof raw.command === 'string') return stdio(raw, ctx);
  if (urlKey) return remote(raw, urlKey, ctx);
  return { view: { transport: 'stdio', ...empty }, problem: 'it has neither a command nor a URL that Countersign can start', moved: [] };
}

function stdio(raw: Record<string, unknown>, ctx: EntryContext): Interpreted {
  const command = raw.command as string;
  const args = raw.args === undefined ? [] : raw.args;
  const env = raw.env === undefined ? {} : raw.env;
  const view = {
    transport: 'stdio' as const,
    commandLine: stringList(args) ? [command, ...args] : [command],
    cwd: typeof raw.cwd === 'string' ? raw.cwd : undefined,
    envNames: isPlainObject(env) ? Object.keys(env) : [],
    headerNames: [],
  };
  const moved = ['env', 'cwd'].filter((k) => k in raw);
  const through = parseCountersignArgv(view.commandLine);
  if (through) return { view, through, moved };
  const problem = clientSide(raw)
    ?? (!stringList(args) ? 'its args are not a list of strings' : undefined)
    ?? (!stringMap(env) ? 'its env is not a map of strings' : undefined)
    ?? (raw.cwd !== undefined && typeof raw.cwd !== 'string' ? 'its cwd is not a string' : undefined)
    ?? (raw.type !== undefined && raw.type !== 'stdio' ? `its type is ${JSON.stringify(raw.type)} but it has a command` : undefined);
  if (problem) return { view, problem, moved };
  const filled = fill(ctx, { command, args: args as string[], env: env as Record<string, string>, cwd: view.cwd });
  if ('problem' in filled) return { view, problem: filled.problem, moved };
  const { command: cmd, args: a, env: e } = filled.value;
  const cwd = workingFolder(filled.value.cwd, ctx);
  if (cwd === null) return { view, problem: `its cwd (${view.cwd}) is relative, and a user-wide file names no folder it is relative to`, moved };
  const config: ServerConfig = { command: cmd, ...(a.length > 0 && { args: a }), ...(Object.keys(e).length > 0 && { env: e }), ...(cwd !== undefined && { cwd }) };
  return { view, config, moved };
}

function remote(raw: Record<string, unknown>, urlKey: string, ctx: EntryContext): Interpreted {
  const headersKey = ctx.client.containers === 'codex' ? 'http_headers' : 'headers';
  const headers = raw[headersKey] === undefined ? {} : raw[headersKey];
  const view = { transport: 'http' as const, url: raw[urlKey] as string, envNames: [], headerNames: isPlainObject(headers) ? Object.keys(headers) : [] };
  const moved = [...ctx.client.urlKeys, headersKey].filter((k) => k in raw);
  const sse = raw.type === 'sse' || (ctx.client.id === 'gemini' && urlKey === 'url' && raw.type !== 'http');
  const problem = clientSide(raw)
    ?? (sse ? 'it is a legacy SSE server; Countersign relays Streamable HTTP servers only' : undefined)
    ?? (!stringMap(headers) ? 'its headers are not a map of strings' : undefined);
  if (problem) return { view, problem, moved };
  const filled = fill(ctx, { url: view.url, headers: headers as Record<string, string> });
  if ('problem' in filled) return { view, problem: filled.problem, moved };
  if (!/^https?:\/\//i.test(filled.value.url)) return { view, problem: 'its URL is not http: or https:', moved };
  const h = filled.value.headers;
  return { view, config: { url: filled.value.url, ...(Object.keys(h).length && { headers: h }) }, moved };
}

/** The folder the server runs in: its cwd (relative ones from the project), else the project's. Null: unknowable. */
function workingFolder(cwd: string | undefined, ctx: EntryContext): string | undefined | null {
  const p = ctx.platform === 'win32' ? path.win32 : path.posix;
  if (cwd === undefined) return ctx.defaultCwd;
  if (p.isAbsolute(cwd)) return cwd;
  return ctx.defaultCwd === undefined ? null : p.resolve(ctx.defaultCwd, cwd);
}

function clientSide(raw: Record<string, unknown>): string | undefined {
  const key = Object.keys(CLIENT_SIDE).find((k) => raw[k] !== undefined && raw[k] !== null && raw[k] !== false);
  return key ? `it ${CLIENT_SIDE[key]}` : undefined;
}

/** Fills every string of a launch; the first placeholder that cannot be filled is the problem. */
function fill<T>(ctx: EntryContext, launch: T): { value: T } | { problem: string } {
  const left: Array<{ where: string; placeholder: string }> = [];
  const walk = (value: unknown, where: string): unknown => {
    if (typeof value === 'string') {
      const r = resolvePlaceholders(ctx.client.placeholders, value, ctx);
      for (const placeholder of r.unresolved) left.push({ where, placeholder });
      return r.value;
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${where}[${i}]`));
    if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, where ? `${where}.${k}` : k)]));
    return value;
  };
  const value = walk(launch, '') as T;
  const first = left[0];
  if (!first) return { value };
  const more = left.length > 1 ? ` (and ${left.length - 1} more)` : '';
  return {
    problem: `${first.placeholder} in ${first.where}${more} is filled in by ${ctx.client.name} when it starts the server, and Countersign would start it without that value. ` +
      'To protect this server, put the value itself in the entry (wrap then moves it into Countersign\'s private store) and wrap again',
  };
}
