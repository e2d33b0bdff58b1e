// The MCP clients Countersign knows, where each keeps its config on Linux, macOS and Windows, and how
// its entries are written (dialects.ts). Paths follow each client's documentation; user files first,
// then project ones. A file's format follows its name: .toml, .yaml/.yml, else JSON (with comments).
import fs from 'node:fs';
import path from 'node:path';
import type { ClientId, ConfigScope } from '../../../shared/clients.js';
import { DIALECTS, type Dialect } from './dialects.js';

export interface ClientDef {
  id: ClientId;
  name: string;
  dialect: Dialect;
  /** Config files in the person's home (or the client's own settings folder). */
  user(where: Where): string[];
  /** Folders where each .yaml, .yml or .json file is a config (Continue's mcpServers blocks). */
  userFolders?(where: Where): string[];
  /** Paths inside a project folder. */
  project: string[];
  projectFolders?: string[];
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

export type FormatKind = 'json' | 'toml' | 'yaml';

export function formatKindOf(file: string): FormatKind {
  if (/\.toml$/i.test(file)) return 'toml';
  if (/\.ya?ml$/i.test(file)) return 'yaml';
  return 'json';
}

function pathFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** An absolute folder from the environment, else undefined (a relative one would depend on the cwd). */
function envDir(w: Where, name: string): string | undefined {
  const dir = w.env[name];
  return dir && pathFor(w.platform).isAbsolute(dir) ? dir : undefined;
}

/** The per-user settings folder desktop apps use: Application Support, %APPDATA% or XDG. */
function appData(w: Where): string {
  const p = pathFor(w.platform);
  if (w.platform === 'darwin') return p.join(w.home, 'Library', 'Application Support');
  if (w.platform === 'win32') return w.env.APPDATA || p.join(w.home, 'AppData', 'Roaming');
  return xdgConfig(w);
}

/** $XDG_CONFIG_HOME or ~/.config: where CLI tools keep settings on Linux and macOS (and some on Windows). */
function xdgConfig(w: Where): string {
  return (w.platform !== 'win32' && envDir(w, 'XDG_CONFIG_HOME')) || pathFor(w.platform).join(w.home, '.config');
}

const inHome =
  (...parts: string[]) =>
  (w: Where): string[] => [pathFor(w.platform).join(w.home, ...parts)];

/** VS Code and the editors built on it, whose extensions (Cline, Roo Code) keep settings in globalStorage. */
const VSCODE_FAMILY = ['Code', 'Code - Insiders', 'Cursor', 'VSCodium', 'Windsurf'];
const extensionSettings =
  (extension: string, file: string) =>
  (w: Where): string[] =>
    VSCODE_FAMILY.map((editor) => pathFor(w.platform).join(appData(w), editor, 'User', 'globalStorage', extension, 'settings', file));

export const CLIENTS: readonly ClientDef[] = [
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    dialect: DIALECTS['claude-desktop'],
    // Linux has no official build; the community ones use ~/.config/Claude.
    user: (w) => (w.platform === 'linux' ? ['Claude', 'claude'] : ['Claude']).map((d) => pathFor(w.platform).join(appData(w), d, 'claude_desktop_config.json')),
    project: [],
  },
  {
    id: 'claude-code',
    name: 'Claude Code',
    dialect: DIALECTS['claude-code'],
    user: (w) => [pathFor(w.platform).join(envDir(w, 'CLAUDE_CONFIG_DIR') ?? w.home, '.claude.json')],
    project: ['.mcp.json'],
  },
  {
    id: 'cursor',
    name: 'Cursor',
    dialect: DIALECTS.cursor,
    user: inHome('.cursor', 'mcp.json'),
    project: ['.cursor/mcp.json'],
  },
  {
    id: 'vscode',
    name: 'VS Code',
    dialect: DIALECTS.vscode,
    // mcp.json, and the older "mcp" block of settings.json, which VS Code still reads.
    user: (w) => ['Code', 'Code - Insiders'].flatMap((d) => ['mcp.json', 'settings.json'].map((f) => pathFor(w.platform).join(appData(w), d, 'User', f))),
    project: ['.vscode/mcp.json', '.vscode/settings.json'],
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    dialect: DIALECTS.windsurf,
    user: inHome('.codeium', 'windsurf', 'mcp_config.json'),
    project: [],
  },
  {
    id: 'codex',
    name: 'Codex',
    dialect: DIALECTS.codex,
    user: (w) => [pathFor(w.platform).join(envDir(w, 'CODEX_HOME') ?? pathFor(w.platform).join(w.home, '.codex'), 'config.toml')],
    project: ['.codex/config.toml'],
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    dialect: DIALECTS.gemini,
    user: inHome('.gemini', 'settings.json'),
    project: ['.gemini/settings.json'],
  },
  {
    // https://docs.cline.bot/mcp/configuring-mcp-servers: the extension's globalStorage, or the CLI's ~/.cline.
    id: 'cline',
    name: 'Cline',
    dialect: DIALECTS.cline,
    user: (w) => [
      ...extensionSettings('saoudrizwan.claude-dev', 'cline_mcp_settings.json')(w),
      pathFor(w.platform).join(w.home, '.cline', 'data', 'settings', 'cline_mcp_settings.json'),
    ],
    project: [],
  },
  {
    // https://docs.roocode.com/features/mcp/using-mcp-in-roo: global mcp_settings.json, project .roo/mcp.json.
    id: 'roo-code',
    name: 'Roo Code',
    dialect: DIALECTS['roo-code'],
    user: extensionSettings('rooveterinaryinc.roo-cline', 'mcp_settings.json'),
    project: ['.roo/mcp.json'],
  },
  {
    // https://docs.continue.dev/customize/deep-dives/mcp: config.yaml, and one block per file in mcpServers/.
    id: 'continue',
    name: 'Continue',
    dialect: DIALECTS.continue,
    user: (w) => [pathFor(w.platform).join(continueHome(w), 'config.yaml')],
    userFolders: (w) => [pathFor(w.platform).join(continueHome(w), 'mcpServers')],
    project: [],
    projectFolders: ['.continue/mcpServers'],
  },
  {
    // https://github.com/charmbracelet/crush#configuration: .crush.json, crush.json, then the global file.
    id: 'crush',
    name: 'Crush',
    dialect: DIALECTS.crush,
    user: (w) => {
      const p = pathFor(w.platform);
      const global =
        envDir(w, 'CRUSH_GLOBAL_CONFIG') ??
        (w.platform === 'win32' ? p.join(w.env.LOCALAPPDATA || p.join(w.home, 'AppData', 'Local'), 'crush') : p.join(xdgConfig(w), 'crush'));
      return [p.join(global, 'crush.json')];
    },
    project: ['.crush.json', 'crush.json'],
  },
  {
    // https://block.github.io/goose/docs/guides/config-files: ~/.config/goose, %APPDATA%\Block\goose\config.
    id: 'goose',
    name: 'goose',
    dialect: DIALECTS.goose,
    user: (w) => {
      const p = pathFor(w.platform);
      return [w.platform === 'win32' ? p.join(appData(w), 'Block', 'goose', 'config', 'config.yaml') : p.join(xdgConfig(w), 'goose', 'config.yaml')];
    },
    project: [],
  },
  {
    // https://kiro.dev/docs/mcp/configuration: user and workspace .kiro/settings/mcp.json.
    id: 'kiro',
    name: 'Kiro',
    dialect: DIALECTS.kiro,
    user: inHome('.kiro', 'settings', 'mcp.json'),
    project: ['.kiro/settings/mcp.json'],
  },
  {
    // https://lmstudio.ai/docs/app/mcp: ~/.lmstudio/mcp.json (older builds: ~/.cache/lm-studio).
    id: 'lmstudio',
    name: 'LM Studio',
    dialect: DIALECTS.lmstudio,
    user: (w) => [...inHome('.lmstudio', 'mcp.json')(w), ...inHome('.cache', 'lm-studio', 'mcp.json')(w)],
    project: [],
  },
  {
    // https://opencode.ai/docs/config: ~/.config/opencode (also on Windows), project opencode.json(c).
    id: 'opencode',
    name: 'opencode',
    dialect: DIALECTS.opencode,
    user: (w) => {
      const p = pathFor(w.platform);
      const dir = p.join(xdgConfig(w), 'opencode');
      const named = w.env.OPENCODE_CONFIG && p.isAbsolute(w.env.OPENCODE_CONFIG) ? [w.env.OPENCODE_CONFIG] : [];
      return [...named, p.join(dir, 'opencode.json'), p.join(dir, 'opencode.jsonc')];
    },
    project: ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'],
  },
  {
    // https://zed.dev/docs/ai/mcp: context_servers in settings.json (~/.config/zed, %APPDATA%\Zed).
    id: 'zed',
    name: 'Zed',
    dialect: DIALECTS.zed,
    user: (w) => {
      const p = pathFor(w.platform);
      return [w.platform === 'win32' ? p.join(appData(w), 'Zed', 'settings.json') : p.join(xdgConfig(w), 'zed', 'settings.json')];
    },
    project: ['.zed/settings.json'],
  },
  {
    // https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/qdev-mcp.html: ~/.aws/amazonq, workspace .amazonq.
    id: 'amazon-q',
    name: 'Amazon Q Developer',
    dialect: DIALECTS['amazon-q'],
    user: (w) => [...inHome('.aws', 'amazonq', 'mcp.json')(w), ...inHome('.aws', 'amazonq', 'agents', 'default.json')(w)],
    project: ['.amazonq/mcp.json'],
  },
  {
    // https://docs.github.com/copilot/how-tos/use-copilot-agents/use-copilot-cli: ~/.copilot/mcp-config.json.
    id: 'copilot-cli',
    name: 'GitHub Copilot CLI',
    dialect: DIALECTS['copilot-cli'],
    user: (w) => {
      const p = pathFor(w.platform);
      const home = envDir(w, 'COPILOT_HOME');
      if (home) return [p.join(home, 'mcp-config.json')];
      const xdg = w.platform !== 'win32' ? envDir(w, 'XDG_CONFIG_HOME') : undefined;
      return [p.join(w.home, '.copilot', 'mcp-config.json'), ...(xdg ? [p.join(xdg, '.copilot', 'mcp-config.json')] : [])];
    },
    project: [],
  },
];

function continueHome(w: Where): string {
  return envDir(w, 'CONTINUE_GLOBAL_DIR') ?? pathFor(w.platform).join(w.home, '.continue');
}

export function clientDef(id: string): ClientDef | undefined {
  return CLIENTS.find((c) => c.id === id);
}

const CONFIG_FILE = /\.(ya?ml|json)$/i;

/** The config files in a folder, sorted; none when it cannot be listed. */
function filesIn(dir: string, platform: NodeJS.Platform): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.isDirectory() && CONFIG_FILE.test(e.name))
      .map((e) => pathFor(platform).join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

/**
 * Every config file of one client: user files, then the project's. A project file that is also a
 * user file (a project opened at the home folder) counts once, as the user's. Folders of config files
 * are listed now (`list`), so a file added there later is found by the next scan.
 */
export function locationsOf(
  client: ClientDef,
  where: Where,
  projects: string[] = [],
  list: (dir: string) => string[] = (d) => filesIn(d, where.platform),
): ConfigLocation[] {
  const p = pathFor(where.platform);
  const out: ConfigLocation[] = [...client.user(where), ...(client.userFolders?.(where) ?? []).flatMap(list)].map((file) => ({
    client,
    path: p.normalize(file),
    scope: 'user',
  }));
  for (const project of projects) {
    const files = [
      ...client.project.map((rel) => p.join(project, ...rel.split('/'))),
      ...(client.projectFolders ?? []).flatMap((rel) => list(p.join(project, ...rel.split('/')))),
    ];
    for (const file of files.map((f) => p.normalize(f))) {
      if (!out.some((l) => samePath(l.path, file, where.platform))) out.push({ client, path: file, scope: 'project', project });
    }
  }
  return out;
}

function samePath(a: string, b: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' || platform === 'darwin' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * Every client config file (and folder of config files) Countersign knows of on this machine, whether
 * it exists or not: the files that decide which commands AI clients start. Self-protection guards them.
 */
export function knownClientConfigPaths(home: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv, projectDirs: string[] = []): string[] {
  return [...new Set(knownClientConfigs({ home, platform, env }, projectDirs).map((c) => c.path))];
}

/** The same, each with the client it configures. */
export function knownClientConfigs(where: Where, projectDirs: string[] = []): Array<{ path: string; client: string }> {
  const p = pathFor(where.platform);
  return CLIENTS.flatMap((c) => {
    const folders = [...(c.userFolders?.(where) ?? []), ...projectDirs.flatMap((d) => (c.projectFolders ?? []).map((rel) => p.join(d, ...rel.split('/'))))];
    const files = locationsOf(c, where, projectDirs, () => []).map((l) => l.path);
    return [...files, ...folders.map((f) => p.normalize(f))].map((file) => ({ path: file, client: c.name }));
  });
}
