// How a local server starts: under its limits, with Countersign's own files hidden; an npx package
// under limits is installed first (package-prep.ts), then run offline. Without a sandbox that can
// enforce its limits it is refused, unless the person let this exact launch run without them.
import { join } from 'node:path';
import type { ServerConfig } from '../../../../shared/api.js';
import type { SandboxSupport } from '../../../../shared/limits.js';
import type { ProtectedPath } from '../../checks/self-protection.js';
import type { GrantSeal } from '../../store/grant-seal.js';
import { defaultKeyDir } from '../../store/key-vault.js';
import type { SettingsStore } from '../../store/settings-store.js';
import { runsWithoutLimits } from '../../trust/run-without-limits.js';
import type { VersionResolver } from '../../trust/version-resolver.js';
import type { SandboxOptions } from '../server-process.js';
import { sandboxSupport } from './detect.js';
import type { HideSpec } from './hidden-paths.js';
import { NpmPreparer } from './package-prep.js';

export interface ServerSandboxOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** What sandbox works here; probed once per process when omitted. */
  support?: Promise<SandboxSupport>;
  resolver?: VersionResolver;
  store: SettingsStore;
  seal: GrantSeal;
  /** Countersign's own files and the clients' configs, with those of these project folders. */
  protectedPaths: (projects: string[]) => ProtectedPath[];
}

export class ServerSandbox {
  private preparer?: NpmPreparer;

  constructor(private readonly opts: ServerSandboxOptions) {}

  /** What sandbox works here (probed on first use, then kept). */
  support(): Promise<SandboxSupport> {
    return this.opts.support ?? sandboxSupport();
  }

  /** How this server starts (read from the stored config whether it may run without its limits). */
  optionsFor(name: string, config: ServerConfig): SandboxOptions {
    const stored = this.opts.store.getServer(name);
    return {
      support: this.support(),
      limits: 'command' in config ? config.limits : undefined,
      preparer: this.packagePreparer(),
      hide: () => this.hide(config),
      allowUnenforced: !!stored && runsWithoutLimits(this.opts.seal, name, stored),
      server: name,
    };
  }

  /**
   * What no sandbox may show: the protected paths (data folder, sockets, seal key, policy, the clients'
   * configs, those in the server's folder and in every folder it is given too) and the key folder.
   */
  hide(config: ServerConfig | undefined): HideSpec {
    const stdio = config && 'command' in config ? config : undefined;
    const fsLimit = stdio?.limits?.filesystem;
    const grants = fsLimit && fsLimit !== 'host' ? [...fsLimit.read, ...fsLimit.write] : [];
    const projects = [stdio?.cwd ?? process.cwd(), ...grants];
    return {
      paths: [...this.opts.protectedPaths(projects), { path: defaultKeyDir(this.opts.env ?? process.env), what: "Countersign's seal key folder" }],
      lent: [join(this.opts.dataDir, 'packages')],
    };
  }

  packagePreparer(): NpmPreparer {
    this.preparer ??= new NpmPreparer({
      root: join(this.opts.dataDir, 'packages'),
      support: this.support(),
      resolve: this.opts.resolver,
      source: this.opts.env,
      hide: () => this.hide(undefined),
    });
    return this.preparer;
  }
}
