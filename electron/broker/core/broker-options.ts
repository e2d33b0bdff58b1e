// What a broker is opened with: its data folder, and what tests and surfaces replace or add.
import type { ServerConfig } from '../../../shared/api.js';
import type { SandboxSupport } from '../../../shared/limits.js';
import type { ProtectedPath } from '../checks/self-protection.js';
import type { VersionResolver } from '../trust/version-resolver.js';
import type { MessageTransport } from '../wire/transport.js';

export interface BrokerOptions {
  dataDir: string;
  /** Overrides the saved approval timeout (e.g. `serve --approval-timeout`). */
  approvalTimeoutSeconds?: number;
  progressIntervalMs?: number;
  auditMaxBytes?: number;
  onWarning?: (text: string) => void;
  onServerStderr?: (server: string, text: string) => void;
  /** npm's `_npx` cache, where pinned npx packages are looked for (default: npm's own). */
  npxCache?: string;
  /** Finds exact package versions when pinning (npm, PyPI, docker); replaceable in tests. */
  resolver?: VersionResolver;
  env?: NodeJS.ProcessEnv;
  /**
   * Starts a server's transport instead of spawning its command (tests: real in-process MCP servers over
   * linked transports). Launch consent, pins and policy are checked before it is asked, as for a command.
   */
  upstream?: (name: string, config: ServerConfig) => MessageTransport | undefined;
  /**
   * More files no rule, lease, allowance or trust may let a call touch without the person (clients'
   * configs, the seal key): added to the data dir, the team policy file and the socket.
   */
  protectedPaths?: () => ProtectedPath[];
  /** The home folder whose client configs `clients`/`wrap` look at (default: this user's). */
  home?: string;
  /** A project folder whose client configs (.vscode/mcp.json…) the Clients view shows when asked for none: where `serve` started. */
  clientsProject?: string;
  /** What sandbox works here; probed once per process when omitted (replaceable in tests). */
  sandbox?: Promise<SandboxSupport>;
  /** The managed policy file to read instead of the OS-managed path (tests). */
  managedPolicyPath?: string;
  /** false: no undo snapshots (the benchmark's baseline only; there is no setting for it). */
  snapshots?: boolean;
  /** Called once a call's undo snapshot is synced, before the call goes on (tests: crash ordering). */
  afterSnapshotKept?: (id: string) => Promise<void>;
  /** Milliseconds, for how long servers take to start (replaceable in tests). */
  clock?: () => number;
}
