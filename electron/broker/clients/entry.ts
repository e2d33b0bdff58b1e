// What one server entry of a client's file means: how the client starts it, whether that goes through
// Countersign, and the launch Countersign would take over, or why it cannot.
import path from 'node:path';
import type { ServerConfig } from '../../../shared/api.js';
import type { ClientServerView } from '../../../shared/clients.js';
import { NO_LIMITS } from '../../../shared/limits.js';
import type { ClientDef } from './catalogue.js';
import { isPlainObject } from './config-format.js';
import { parseCountersignArgv, type CountersignRef } from './countersign-entry.js';
import { resolvePlaceholders, type PlaceholderContext, type Unresolved } from './placeholders.js';
import { FILL_NAME, MAX_FILLS } from '../../../shared/config-schema.js';
import { LOADER_ENV } from '../trust/launch-fill.js';

export interface EntryContext extends PlaceholderContext {
  client: ClientDef;
  /** The folder the client starts a project's servers in, when the entry names no cwd. */
  defaultCwd?: string;
}

/** How the entry writes its launch, so wrap writes the new one the same way. */
export type LaunchForm = 'command' | 'cmd' | 'command-array' | 'zed-object';

export interface Interpreted {
  view: Omit<ClientServerView, 'name' | 'group' | 'state' | 'countersignServer' | 'note'>;
  through?: CountersignRef;
  /** What Countersign would store; undefined when wrap must refuse (`problem`). */
  config?: ServerConfig;
  problem?: string;
  /** Keys wrap takes out of the entry: they move into Countersign with the server. */
  moved: string[];
  form: LaunchForm;
}

/** Keys that make the client compute part of the launch itself, which Countersign cannot repeat. */
const CLIENT_SIDE: Record<string, string> = {
  envFile: 'reads an env file (envFile) when the client starts it',
  env_vars: "passes variables from the client's own environment (env_vars)",
  bearer_token_env_var: "takes its token from the client's environment (bearer_token_env_var)",
  env_http_headers: "takes header values from the client's environment (env_http_headers)",
  headersHelper: 'runs a helper to compute its headers (headersHelper)',
  oauth: 'signs in with OAuth through the client, which Countersign does not do for remote servers',
  authProviderType: 'signs in through the client (authProviderType)',
};

const stringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const stringMap = (v: unknown): v is Record<string, string> => isPlainObject(v) && Object.values(v).every((s) => typeof s === 'string');
const empty = { envNames: [], headerNames: [] };

export function interpretEntry(raw: unknown, ctx: EntryContext): Interpreted {
  const d = ctx.client.dialect;
  const form: LaunchForm = d.launch === 'zed' ? (isPlainObject(isPlainObject(raw) ? raw.command : undefined) ? 'zed-object' : 'command') : d.launch;
  const refuse = (problem: string): Interpreted => ({ view: { transport: 'stdio', ...empty }, problem, moved: [], form });
  if (!isPlainObject(raw)) return refuse('the entry is not an object');
  const builtin = d.builtin?.(raw);
  if (builtin) return refuse(`it is ${builtin}`);
  const launch = launchOf(raw, form, d.env);
  const urlKey = d.urlKeys.find((k) => typeof raw[k] === 'string');
  if (launch) return stdio(raw, launch, form, ctx);
  if (urlKey) return remote(raw, urlKey, form, ctx);
  return refuse('it has neither a command nor a URL that Countersign can start');
}

interface Launch {
  command: unknown;
  args: unknown;
  env: unknown;
}

/** The command, args and env as the entry writes them; undefined when it has no command. */
function launchOf(raw: Record<string, unknown>, form: LaunchForm, envKey: string): Launch | undefined {
  switch (form) {
    case 'cmd':
      return typeof raw.cmd === 'string' ? { command: raw.cmd, args: raw.args, env: raw[envKey] } : undefined;
    case 'command-array':
      return stringList(raw.command) && raw.command.length ? { command: raw.command[0], args: raw.command.slice(1), env: raw[envKey] } : undefined;
    case 'zed-object': {
      const c = raw.command as Record<string, unknown>;
      return typeof c.path === 'string' ? { command: c.path, args: c.args, env: c.env } : undefined;
    }
    default:
      return typeof raw.command === 'string' ? { command: raw.command, args: raw.args, env: raw[envKey] } : undefined;
  }
}

function stdio(raw: Record<string, unknown>, launch: Launch, form: LaunchForm, ctx: EntryContext): Interpreted {
  const d = ctx.client.dialect;
  const command = launch.command as string;
  const args = launch.args === undefined ? [] : launch.args;
  const env = launch.env === undefined ? {} : launch.env;
  const cwdRaw = d.cwd ? raw[d.cwd] : undefined;
  const view = {
    transport: 'stdio' as const,
    commandLine: stringList(args) ? [command, ...args] : [command],
    cwd: typeof cwdRaw === 'string' ? cwdRaw : undefined,
    envNames: isPlainObject(env) ? Object.keys(env) : [],
    headerNames: [],
  };
  const moved = form === 'zed-object' ? [] : [d.env, ...(d.cwd ? [d.cwd] : [])].filter((k) => k in raw);
  const through = parseCountersignArgv(view.commandLine);
  if (through) return { view, through, moved, form };
  const problem =
    clientSide(raw, ctx) ??
    (!stringList(args) ? 'its args are not a list of strings' : undefined) ??
    (!stringMap(env) ? 'its env is not a map of strings' : undefined) ??
    (cwdRaw !== undefined && typeof cwdRaw !== 'string' ? 'its cwd is not a string' : undefined) ??
    (raw.type !== undefined && !d.stdioTypes.includes(raw.type as string) ? `its type is ${JSON.stringify(raw.type)} but it has a command` : undefined);
  if (problem) return { view, problem, moved, form };
  const filled = fill(ctx, { command, args: args as string[], env: env as Record<string, string>, cwd: view.cwd }, form === 'command');
  if ('problem' in filled) return { view, problem: filled.problem, moved, form };
  const { command: cmd, args: a, env: e } = filled.value;
  const cwd = workingFolder(filled.value.cwd, ctx);
  if (cwd === null) return { view, problem: `its cwd (${view.cwd}) is relative, and a user-wide file names no folder it is relative to`, moved, form };
  const config: ServerConfig = {
    command: cmd,
    ...(a.length > 0 && { args: a }),
    ...(Object.keys(e).length > 0 && { env: e }),
    ...(cwd !== undefined && { cwd }),
    ...(filled.passEnv.length > 0 && { limits: { ...NO_LIMITS, passEnv: filled.passEnv } }),
    ...(filled.fills.length > 0 && { fills: filled.fills }),
  };
  return { view, config, moved, form };
}

function remote(raw: Record<string, unknown>, urlKey: string, form: LaunchForm, ctx: EntryContext): Interpreted {
  const d = ctx.client.dialect;
  const headers = raw[d.headers] === undefined ? {} : raw[d.headers];
  const view = { transport: 'http' as const, url: raw[urlKey] as string, envNames: [], headerNames: isPlainObject(headers) ? Object.keys(headers) : [] };
  const moved = [...d.urlKeys, d.headers].filter((k) => k in raw);
  const problem =
    clientSide(raw, ctx) ??
    (d.sse(raw, urlKey) ? 'it is a legacy SSE server; Countersign relays Streamable HTTP servers only' : undefined) ??
    (!stringMap(headers) ? 'its headers are not a map of strings' : undefined);
  if (problem) return { view, problem, moved, form };
  const filled = fill(ctx, { url: view.url, headers: headers as Record<string, string> });
  if ('problem' in filled) return { view, problem: filled.problem, moved, form };
  if (!/^https?:\/\//i.test(filled.value.url)) return { view, problem: 'its URL is not http: or https:', moved, form };
  const h = filled.value.headers;
  return { view, config: { url: filled.value.url, ...(Object.keys(h).length && { headers: h }) }, moved, form };
}

/** The folder the server runs in: its cwd (relative ones from the project), else the project's. Null: unknowable. */
function workingFolder(cwd: string | undefined, ctx: EntryContext): string | undefined | null {
  const p = ctx.platform === 'win32' ? path.win32 : path.posix;
  if (cwd === undefined) return ctx.defaultCwd;
  if (p.isAbsolute(cwd)) return cwd;
  return ctx.defaultCwd === undefined ? null : p.resolve(ctx.defaultCwd, cwd);
}

function clientSide(raw: Record<string, unknown>, ctx: EntryContext): string | undefined {
  const keys = { ...CLIENT_SIDE, ...ctx.client.dialect.clientSide };
  const set = (v: unknown) => v !== undefined && v !== null && v !== false && !(Array.isArray(v) && v.length === 0);
  const key = Object.keys(keys).find((k) => set(raw[k]));
  return key ? `it ${keys[key]}` : undefined;
}

/**
 * Fills every string of a launch. An env value that is exactly a variable of the client's environment
 * with the env entry's own name passes through (`passEnv`); a placeholder the client fills when it starts
 * the command stays as written (`fills`, when `started`: a local command); the first one left is the problem.
 */
function fill<T extends object & { env?: Record<string, string> }>(
  ctx: EntryContext,
  launch: T,
  started = false,
): { value: T; passEnv: string[]; fills: string[] } | { problem: string } {
  const left: Array<{ where: string; placeholder: Unresolved }> = [];
  const passEnv: string[] = [];
  const fills = new Set<string>();
  const style = ctx.client.dialect.placeholders;
  const expands = started ? (ctx.client.dialect.expands ?? []) : [];
  const walk = (value: unknown, where: string): unknown => {
    if (typeof value === 'string') {
      const r = resolvePlaceholders(style, value, ctx);
      for (const placeholder of r.unresolved) {
        const name = placeholder.text.slice(2, -1);
        const loader = where.startsWith('env.') && LOADER_ENV.test(where.slice(4));
        if (expands.includes(placeholder.kind) && FILL_NAME.test(name) && !loader) fills.add(name);
        else left.push({ where, placeholder: { ...placeholder, ...(loader && expands.includes(placeholder.kind) && { loader: true }) } });
      }
      return r.value;
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${where}[${i}]`));
    if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, where ? `${where}.${k}` : k)]));
    return value;
  };
  const { env, ...rest } = launch;
  const value = walk(rest, '') as T;
  if (env) {
    const kept: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) {
      const r = resolvePlaceholders(style, v, ctx);
      const only = r.unresolved.length === 1 ? r.unresolved[0]! : undefined;
      if (only?.kind === 'env' && only.text === v && only.name === k) passEnv.push(k);
      else kept[k] = walk(v, `env.${k}`) as string;
    }
    value.env = kept;
  }
  const first = left[0];
  if (!first && fills.size > MAX_FILLS)
    return { problem: `it has ${fills.size} placeholders for ${ctx.client.name} to fill; Countersign passes at most ${MAX_FILLS}` };
  if (!first) return { value, passEnv, fills: [...fills].sort() };
  return { problem: placeholderProblem(ctx, first.placeholder, first.where, left.length - 1, started) };
}

function placeholderProblem(ctx: EntryContext, u: Unresolved, where: string, more: number, started: boolean): string {
  const name = ctx.client.name;
  const at = `${u.text} in ${where}${more ? ` (and ${more} more)` : ''}`;
  const stays = 'so Countersign leaves this entry as it is (it still works, without Countersign)';
  if (u.loader)
    return `${at} would be filled by ${name} at launch into a variable that decides what code runs, where you would not see it when you approve the launch, ${stays}`;
  const expands = ctx.client.dialect.expands;
  if (expands?.includes(u.kind)) {
    return started
      ? `${at} is not a placeholder Countersign can pass on from ${name} (a name of letters, digits and _.:- only), ${stays}`
      : `${at} is filled by ${name} when it connects, and Countersign passes such values on only for a server it starts (a command), not for a remote server's address or headers, ${stays}`;
  }
  if (expands && u.kind !== 'other')
    return `${at}: ${name} does not fill ${u.kind === 'input' ? '${input:…}' : 'this'} variable when it starts a server (it fills ${expands.map(kindName).join(', ')}), ${stays}`;
  switch (u.kind) {
    case 'env':
      return `${at} is filled in by ${name} from its environment when it starts the server; Countersign passes a variable through only as the whole value of the env entry of the same name, ${stays}`;
    case 'input':
      return `${at} is asked of you by ${name} each time it starts the server, and Countersign cannot ask on its behalf, ${stays}`;
    case 'workspace':
      return `${at} is the folder ${name} has open, which a user-wide file does not name, ${stays}. Put the server in the project's ${ctx.client.project[0] ?? 'own config'} to wrap it there`;
    default:
      return `${at} is computed by ${name} when it starts the server, which Countersign cannot repeat, ${stays}`;
  }
}

function kindName(kind: Unresolved['kind']): string {
  return kind === 'env' ? '${env:…}' : kind === 'input' ? '${input:…}' : kind === 'workspace' ? '${workspaceFolder}' : 'its other variables';
}
