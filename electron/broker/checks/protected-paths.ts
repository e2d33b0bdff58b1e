// Countersign's own files and the clients' configs: what self-protection guards (self-protection.ts)
// and what no sandbox may show.
import { join, resolve } from 'node:path';
import { SNAPSHOTS_DIR } from '../undo/snapshots-dir.js';
import { knownClientConfigs, type Where } from '../clients/catalogue.js';
import { reportsSocketPath, socketPath } from '../store/data-dir.js';
import type { ProtectedPath } from './self-protection.js';

export interface OwnFiles {
  dataDir: string;
  /** The team policy file in effect. */
  policy?: string;
  /** Where the clients' configs are looked for. */
  where: Where;
  /** The seal's key file, and any more (the desktop app's). */
  more: ProtectedPath[];
}

/** Countersign's own files and the clients' configs, with those of these project folders. */
export function protectedPaths(own: OwnFiles, projects: string[] = []): ProtectedPath[] {
  const { dataDir, policy } = own;
  const sockets = process.platform === 'win32' ? [] : [socketPath(dataDir), reportsSocketPath(dataDir)].filter((s) => !s.startsWith(resolve(dataDir)));
  return [
    { path: dataDir, what: "Countersign's data folder" },
    // Inside the data folder already; named so a card says what a call would touch (undo's store).
    { path: join(dataDir, SNAPSHOTS_DIR), what: "Countersign's undo snapshots" },
    ...(policy ? [{ path: policy, what: "Countersign's team policy file" }] : []),
    ...sockets.map((socket) => ({ path: socket, what: "Countersign's socket" })),
    // A client's config decides what commands it starts: a project's too (`.vscode/mcp.json`, …).
    ...knownClientConfigs(own.where, projects).map((c) => ({ path: c.path, what: `${c.client}'s MCP config` })),
    ...own.more,
  ];
}
