// The self-protection scope of a server's calls (self-protection.ts), kept a second: it is asked per
// call, and listing the clients' configs costs more than a call's own check. Any change of settings
// clears it (the event bus); anything else lapses within a second.
import { isAbsolute, resolve } from 'node:path';
import type { ServerConfig } from '../../../shared/api.js';
import { cliPrograms } from '../core/cli-command.js';
import { argumentFolders, scopeFor, type ProtectedPath, type ProtectScope } from './self-protection.js';

export interface ProtectScopeOptions {
  server: (name: string) => ServerConfig | undefined;
  /** Countersign's own files and the clients' configs, with those of these project folders. */
  protectedPaths: (projects: string[]) => ProtectedPath[];
  env: () => NodeJS.ProcessEnv;
}

export class ProtectScopeCache {
  private readonly scopes = new Map<string, { scope: ProtectScope; until: number }>();

  constructor(private readonly opts: ProtectScopeOptions) {}

  /**
   * Relative paths in a server's arguments may be read from its folder, the folders among its arguments,
   * home or Countersign's own folder.
   */
  get(server: string): ProtectScope {
    const config = this.opts.server(server);
    const local = config && 'command' in config ? config : undefined;
    const cwd = local?.cwd ? resolve(local.cwd) : process.cwd();
    // Keyed by what the paths come from, not by the paths.
    const key = JSON.stringify([cwd, local?.args ?? [], local?.env ?? {}]);
    const cached = this.scopes.get(key);
    if (cached && cached.until > Date.now()) return cached.scope;
    // The folders it is given: server-filesystem reads a relative path from each.
    const folders = argumentFolders(local?.args ?? [], cwd);
    // The server's folder and the folders it is given are where project configs could be written.
    const projects = [cwd, ...new Set([...(local?.args ?? []).filter((a) => isAbsolute(a)), ...folders])];
    // Naming a program that starts Countersign's CLI runs Countersign (its name is checked apart, cli-invocation.ts).
    const programs = cliPrograms().map((p) => ({ path: p, what: "Countersign's command line", runs: true as const }));
    const scope = scopeFor([...this.opts.protectedPaths(projects), ...programs], cwd, this.opts.env(), { folders, serverEnv: local?.env });
    if (this.scopes.size > 100) this.scopes.clear();
    this.scopes.set(key, { scope, until: Date.now() + 1000 });
    return scope;
  }

  clear(): void {
    this.scopes.clear();
  }
}
