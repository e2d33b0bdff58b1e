// A temporary home folder laid out as on Linux, with every client's fixture config in its real place,
// and a project folder holding the project-scope files.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CountersignApi } from '../../shared/api.js';
import { Broker } from '../../electron/broker/core/broker.js';
import { makeDataDir } from './broker-harness.js';
import { ROOT } from './paths.js';

export const CLIENT_FIXTURES = join(ROOT, 'test/fixtures/clients');

/** Fixture file → where it goes under the home folder. */
export const USER_LAYOUT = {
  'claude-desktop': ['claude-desktop/claude_desktop_config.json', '.config/Claude/claude_desktop_config.json'],
  'claude-code': ['claude-code/.claude.json', '.claude.json'],
  cursor: ['cursor/mcp.json', '.cursor/mcp.json'],
  vscode: ['vscode/mcp.json', '.config/Code/User/mcp.json'],
  windsurf: ['windsurf/mcp_config.json', '.codeium/windsurf/mcp_config.json'],
  codex: ['codex/config.toml', '.codex/config.toml'],
  gemini: ['gemini/settings.json', '.gemini/settings.json'],
  cline: ['cline/cline_mcp_settings.json', '.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json'],
  'roo-code': ['roo-code/mcp_settings.json', '.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json'],
  continue: ['continue/config.yaml', '.continue/config.yaml'],
  crush: ['crush/crush.json', '.config/crush/crush.json'],
  goose: ['goose/config.yaml', '.config/goose/config.yaml'],
  kiro: ['kiro/mcp.json', '.kiro/settings/mcp.json'],
  lmstudio: ['lmstudio/mcp.json', '.lmstudio/mcp.json'],
  opencode: ['opencode/opencode.json', '.config/opencode/opencode.json'],
  zed: ['zed/settings.json', '.config/zed/settings.json'],
  'amazon-q': ['amazon-q/mcp.json', '.aws/amazonq/mcp.json'],
  'copilot-cli': ['copilot-cli/mcp-config.json', '.copilot/mcp-config.json'],
} as const;

export type FixtureClient = keyof typeof USER_LAYOUT;

/** Project files of each client (the first is `projectFile`). */
export const PROJECT_LAYOUT: Partial<Record<FixtureClient, string[]>> = {
  'claude-code': ['.mcp.json'],
  cursor: ['.cursor/mcp.json'],
  vscode: ['.vscode/mcp.json'],
  codex: ['.codex/config.toml'],
  gemini: ['.gemini/settings.json'],
  'roo-code': ['.roo/mcp.json'],
  continue: ['.continue/mcpServers/ctxo.json', '.continue/mcpServers/playwright-mcp.yaml'],
  kiro: ['.kiro/settings/mcp.json'],
  opencode: ['opencode.jsonc'],
  zed: ['.zed/settings.json'],
  'amazon-q': ['.amazonq/mcp.json'],
};

export interface ClientHome {
  root: string;
  home: string;
  project: string;
  /** The user file of a client under this home. */
  userFile(client: FixtureClient): string;
  projectFile(client: FixtureClient): string;
  projectFiles(client: FixtureClient): string[];
  fixture(client: FixtureClient): string;
}

export function makeClientHome(clients: FixtureClient[] = Object.keys(USER_LAYOUT) as FixtureClient[], withProject = true): ClientHome {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-clients-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  for (const client of clients) {
    const [from, to] = USER_LAYOUT[client];
    mkdirSync(dirname(join(home, to)), { recursive: true });
    cpSync(join(CLIENT_FIXTURES, from), join(home, to));
    for (const rel of withProject ? (PROJECT_LAYOUT[client] ?? []) : []) {
      mkdirSync(dirname(join(project, rel)), { recursive: true });
      cpSync(join(CLIENT_FIXTURES, 'project', rel), join(project, rel));
    }
  }
  return {
    root,
    home,
    project,
    userFile: (client) => join(home, USER_LAYOUT[client][1]),
    projectFile: (client) => join(project, PROJECT_LAYOUT[client]?.[0] ?? ''),
    projectFiles: (client) => (PROJECT_LAYOUT[client] ?? []).map((rel) => join(project, rel)),
    fixture: (client) => readFileSync(join(CLIENT_FIXTURES, USER_LAYOUT[client][0]), 'utf8'),
  };
}

/** A home with these clients' fixtures and an in-process broker on a fresh data dir; `close` removes both. */
export function clientBroker(
  clients: FixtureClient[],
  withProject = true,
): { h: ClientHome; dataDir: string; core: Broker; broker: CountersignApi; close(): Promise<void> } {
  const h = makeClientHome(clients, withProject);
  const dataDir = makeDataDir();
  const core = new Broker({ dataDir, home: h.home, env: {} });
  // The API as the CLI has it: every change is logged with its actor, as in use.
  const broker = core.apiFor('cli');
  return {
    h,
    dataDir,
    core,
    broker,
    async close() {
      await core.close();
      rmSync(h.root, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
