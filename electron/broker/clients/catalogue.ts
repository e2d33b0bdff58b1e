// The MCP clients Countersign knows, where each keeps its config on Linux, macOS and Windows, and how
// its entries are written. Paths follow each client's documentation; user files first, then project ones.
import path from 'node:path';
import type { ClientId, ConfigScope } from '../../../shared/clients.js';

/** How a client expands placeholders in its entries (see placeholders.ts). */
export type PlaceholderStyle = 'none' | 'vscode' | 'windsurf' | 'claude-code' | 'gemini';

export interface ClientDef {
  id: ClientId;
  name: string;
  format: 'json' | 'toml';
  /** Where the servers are: the key of the server map, or (Claude Code) more than one. */
  containers: 'mcpServers' | 'servers' | 'claude-code' | 'codex';
  /** Keys that hold a remote server's address, in the order the client reads them. */
  urlKeys: string[];
  placeholders: PlaceholderStyle;
  user(where: Where): string[];
  /** Paths inside a project folder. */
  project: string[];
}

export interface Where {
  home: string;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
}

export interface ConfigLocation {
  client: ClientDef;
  path: string;
  scope: ConfigScope;
  project?: string;
}

function pathFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** The per-user settings folder desktop apps use: Application Support, %APPDATA% or XDG. */
function appData({ home, platform, env }: Where): string {
  const p = pathFor(platform);
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support');
  if (platform === 'win32') return env.APPDATA || p.join(home, 'AppData', 'Roaming');
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && p.isAbsolute(xdg) ? xdg : p.join(home, '.config');
}

const inHome = (...parts: string[]) => (w: Where): string[] => [pathFor(w.platform).join(w.home, ...parts)];

export const CLIENTS: readonly ClientDef[] = [
  {
    id: 'claude-desktop', name: 'Claude Desktop', format: 'json', containers: 'mcpServers', urlKeys: ['url'], placeholders: 'none',
    // Linux has no official build; the community ones use ~/.config/Claude.
    user: (w) => {
      const p = pathFor(w.platform);
      const dirs = w.platform === 'linux' ? ['Claude', 'claude'] : ['Claude'];
      return dirs.map((d) => p.join(appData(w), d, 'claude_desktop_config.json'));
    },
    project: [],
  },
  {
    id: 'claude-code', name: 'Claude Code', format: 'json', containers: 'claude-code', urlKeys: ['url'], placeholders: 'claude-code',
    user: (w) => {
      const dir = w.env.CLAUDE_CONFIG_DIR;
      return [pathFor(w.platform).join(dir && pathFor(w.platform).isAbsolute(dir) ? dir : w.home, '.claude.json')];
    },
    project: ['.mcp.json'],
  },
  {
    id: 'cursor', name: 'Cursor', format: 'json', containers: 'mcpServers', urlKeys: ['url'], placeholders: 'vscode',
    user: inHome('.cursor', 'mcp.json'),
    project: ['.cursor/mcp.json'],
  },
  {
    id: 'vscode', name: 'VS Code', format: 'json', containers: 'servers', urlKeys: ['url'], placeholders: 'vscode',
    user: (w) => ['Code', 'Code - Insiders'].map((d) => pathFor(w.platform).join(appData(w), d, 'User', 'mcp.json')),
    project: ['.vscode/mcp.json'],
  },
  {
    id: 'windsurf', name: 'Windsurf', format: 'json', containers: 'mcpServers', urlKeys: ['serverUrl', 'url'], placeholders: 'windsurf',
    user: inHome('.codeium', 'windsurf', 'mcp_config.json'),
    project: [],
  },
  {
    id: 'codex', name: 'Codex', format: 'toml', containers: 'codex', urlKeys: ['url'], placeholders: 'none',
    user: (w) => {
      const dir = w.env.CODEX_HOME;
      const p = pathFor(w.platform);
      return [dir && p.isAbsolute(dir) ? p.join(dir, 'config.toml') : p.join(w.home, '.codex', 'config.toml')];
    },
    project: ['.codex/config.toml'],
  },
  {
    id: 'gemini', name: 'Gemini CLI', format: 'json', containers: 'mcpServers', urlKeys: ['httpUrl', 'url'], placeholders: 'gemini',
    user: inHome('.gemini', 'settings.json'),
    project: ['.gemini/settings.json'],
  },
];

export function clientDef(id: string): ClientDef | undefined {
  return CLIENTS.find((c) => c.id === id);
}

/**
 * Every config file of one client: user files, then the project's. A project file that is also a
 * user file (a project opened at the home folder) counts once, as the user's.
 */
export function locationsOf(client: ClientDef, where: Where, projects: string[] = []): ConfigLocation[] {
  const p = pathFor(where.platform);
  const out: ConfigLocation[] = client.user(where).map((file) => ({ client, path: p.normalize(file), scope: 'user' }));
  for (const project of projects) {
    for (const rel of client.project) {
      const file = p.normalize(p.join(project, ...rel.split('/')));
      if (!out.some((l) => samePath(l.path, file, where.platform))) out.push({ client, path: file, scope: 'project', project });
    }
  }
  return out;
}

function samePath(a: string, b: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' || platform === 'darwin' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * Every client config file Countersign knows of on this machine, whether it exists or not: the files
 * that decide which commands AI clients start. Self-protection guards them.
 */
export function knownClientConfigPaths(home: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv, projectDirs: string[] = []): string[] {
  return [...new Set(knownClientConfigs({ home, platform, env }, projectDirs).map((c) => c.path))];
}

/** The same, each with the client it configures. */
export function knownClientConfigs(where: Where, projectDirs: string[] = []): Array<{ path: string; client: string }> {
  return CLIENTS.flatMap((c) => locationsOf(c, where, projectDirs).map((l) => ({ path: l.path, client: c.name })));
}
