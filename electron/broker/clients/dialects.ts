// How each client writes its server entries: where they are in the file (a map by name, a list of
// named entries, the whole file), which keys hold the command, env, URL and headers, and which values
// mean a legacy SSE server or a server the client runs itself. Entry interpretation (entry.ts), the wrap
// plan (plan.ts) and the formats read this instead of assuming Claude Desktop's shape everywhere.
import type { PlaceholderKind, PlaceholderStyle } from './placeholders.js';

/** Where an entry is: a path of keys and indexes (TOML: ['mcp_servers', name]). */
export type EntryKey = Array<string | number>;

/** What a format can say about a place in a parsed file, without turning the whole file into values. */
export interface Probe {
  at(path: EntryKey): { kind: 'object'; keys: string[] } | { kind: 'array'; length: number } | { kind: 'scalar' } | undefined;
}

export type Container =
  /** An object of name → entry. */
  | { kind: 'map'; path: EntryKey; group?: string; project?: string }
  /** A list of entries, each named by its `name` key (Continue). */
  | { kind: 'list'; path: EntryKey }
  /** The whole file is one server (Continue's one-server JSON files), named after the file. */
  | { kind: 'root'; name: string };

export interface Dialect {
  containers(probe: Probe, file: string): Container[];
  /**
   * How the launch is written: `command` + `args` (most clients), goose's `cmd` + `args`, opencode's
   * one `command` array, or Zed's (`command` + `args`, or an older `command: { path, args, env }`).
   */
  launch: 'command' | 'cmd' | 'command-array' | 'zed';
  env: string;
  cwd?: string;
  /** Keys that hold a remote server's address, in the order the client reads them. */
  urlKeys: string[];
  headers: string;
  /** The `type` values of a stdio entry; a wrapped entry with another `type` (a remote one) gets the first. */
  stdioTypes: string[];
  /** Whether a remote entry is a legacy SSE server (Countersign relays Streamable HTTP only). */
  sse(raw: Record<string, unknown>, urlKey: string): boolean;
  /** An entry the client runs itself (a built-in extension), and what it is. */
  builtin?(raw: Record<string, unknown>): string | undefined;
  /** Keys whose values the client computes itself, and what that means, besides the common ones. */
  clientSide?: Record<string, string>;
  /** Keys a wrap sets to {} instead of taking out (the client's own writer always has them). */
  keepEmpty?: string[];
  /** Where env and header values are in an entry, so previews can mask them. */
  secrets: EntryKey[];
  placeholders: PlaceholderStyle;
  /**
   * The placeholders the client fills when it starts the entry's command (in command, args, cwd and env):
   * wrap keeps them, and the client's values reach Countersign through `connect` (trust/launch-fill.ts).
   */
  expands?: PlaceholderKind[];
}

const typeIs =
  (...types: string[]) =>
  (raw: Record<string, unknown>): boolean =>
    typeof raw.type === 'string' && types.includes(raw.type);

/** The object at `path` as a container of entries, if it is one. */
const mapAt = (probe: Probe, path: EntryKey): Container[] => (probe.at(path)?.kind === 'object' ? [{ kind: 'map', path }] : []);

interface Base {
  containers?: Dialect['containers'];
  sse?: Dialect['sse'];
  placeholders?: PlaceholderStyle;
}

/** Claude Desktop's shape, which most clients copied: `mcpServers` by name, `command`/`args`/`env`, `url`/`headers`. */
function standard(over: Base & Partial<Dialect> = {}): Dialect {
  return {
    containers: (probe) => mapAt(probe, ['mcpServers']),
    launch: 'command',
    env: 'env',
    cwd: 'cwd',
    urlKeys: ['url'],
    headers: 'headers',
    stdioTypes: ['stdio'],
    sse: typeIs('sse'),
    secrets: [['env'], ['headers']],
    placeholders: 'none',
    ...over,
  };
}

export const DIALECTS = {
  'claude-desktop': standard(),
  // Claude Code expands ${VAR} (and ${VAR:-default}) in command, args, env, url and headers at launch.
  'claude-code': standard({
    placeholders: 'claude-code',
    expands: ['env'],
    containers: (probe) => {
      const list = mapAt(probe, ['mcpServers']);
      const projects = probe.at(['projects']);
      for (const name of projects?.kind === 'object' ? projects.keys : []) {
        if (probe.at(['projects', name, 'mcpServers'])?.kind !== 'object') continue;
        list.push({ kind: 'map', path: ['projects', name, 'mcpServers'], group: `projects[${JSON.stringify(name)}]`, project: name });
      }
      return list;
    },
  }),
  // Cursor fills ${env:NAME}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename} and ${pathSeparator}
  // in command, args, env, url and headers; it has no ${input:…}.
  cursor: standard({ placeholders: 'vscode', expands: ['env', 'workspace'] }),
  // VS Code fills its predefined variables and ${input:…} (asked once, kept by VS Code) when it starts a server.
  vscode: standard({
    placeholders: 'vscode',
    expands: ['env', 'workspace', 'input'],
    // mcp.json has `servers`; settings.json keeps them under `mcp.servers`.
    containers: (probe, file) => mapAt(probe, /settings\.json$/i.test(file) ? ['mcp', 'servers'] : ['servers']),
  }),
  // Windsurf fills ${env:NAME} (and ${file:…}) in command, args, env, serverUrl and headers.
  windsurf: standard({ placeholders: 'windsurf', urlKeys: ['serverUrl', 'url'], expands: ['env'] }),
  codex: standard({ headers: 'http_headers', secrets: [['env'], ['http_headers']], containers: (probe) => mapAt(probe, ['mcp_servers']) }),
  gemini: standard({
    placeholders: 'gemini',
    urlKeys: ['httpUrl', 'url'],
    // Gemini CLI reads `url` as SSE unless the entry says http; `httpUrl` is Streamable HTTP.
    sse: (raw, urlKey) => raw.type === 'sse' || (urlKey === 'url' && raw.type !== 'http'),
  }),
  // Cline: a URL without a type is SSE; Streamable HTTP says so.
  cline: standard({ sse: (raw) => raw.type !== 'streamableHttp' && raw.transportType !== 'streamableHttp' }),
  // Roo Code fills ${env:NAME} in args and env.
  'roo-code': standard({ placeholders: 'env-colon', expands: ['env'], sse: (raw) => raw.type !== 'streamable-http' }),
  continue: standard({
    placeholders: 'continue',
    containers: (probe, file) => {
      const servers = probe.at(['mcpServers']);
      if (servers?.kind === 'array') return [{ kind: 'list', path: ['mcpServers'] }];
      if (servers?.kind === 'object') return [{ kind: 'map', path: ['mcpServers'] }];
      const root = probe.at([]);
      // A one-server JSON file in .continue/mcpServers/ is named after the file.
      if (root?.kind === 'object' && (root.keys.includes('command') || root.keys.includes('url'))) {
        return [{ kind: 'root', name: file.replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, '') }];
      }
      return [];
    },
  }),
  crush: standard({ placeholders: 'shell', containers: (probe) => mapAt(probe, ['mcp']), sse: typeIs('sse') }),
  goose: standard({
    launch: 'cmd',
    env: 'envs',
    cwd: undefined,
    urlKeys: ['uri'],
    containers: (probe) => mapAt(probe, ['extensions']),
    sse: typeIs('sse'),
    builtin: (raw) =>
      typeof raw.type === 'string' && !['stdio', 'sse', 'streamable_http'].includes(raw.type)
        ? `a goose ${raw.type} extension, which goose runs itself`
        : undefined,
    clientSide: { env_keys: "takes env_keys from goose's own secret store when it starts the server" },
    keepEmpty: ['envs'],
    secrets: [['envs'], ['headers']],
  }),
  kiro: standard({ placeholders: 'claude-code' }),
  lmstudio: standard(),
  opencode: standard({
    launch: 'command-array',
    env: 'environment',
    cwd: undefined,
    stdioTypes: ['local'],
    placeholders: 'opencode',
    // opencode 1.x: `mcp` by name; 2.x: `mcp.servers`.
    containers: (probe) => {
      const servers = probe.at(['mcp', 'servers']);
      const v2 =
        servers?.kind === 'object' &&
        servers.keys.every((k) => probe.at(['mcp', 'servers', k])?.kind === 'object') &&
        probe.at(['mcp', 'servers', 'type']) === undefined;
      return mapAt(probe, v2 ? ['mcp', 'servers'] : ['mcp']);
    },
    sse: () => false,
    secrets: [['environment'], ['headers']],
  }),
  zed: standard({
    launch: 'zed',
    cwd: undefined,
    containers: (probe) => mapAt(probe, ['context_servers']),
    sse: () => false,
    builtin: (raw) => (raw.source === 'extension' ? 'started by a Zed extension, which Zed runs itself' : undefined),
    secrets: [['env'], ['headers'], ['command', 'env']],
  }),
  'amazon-q': standard({ sse: typeIs('sse') }),
  'copilot-cli': standard({ placeholders: 'claude-code', stdioTypes: ['local', 'stdio'] }),
} as const satisfies Record<string, Dialect>;
