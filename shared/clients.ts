// MCP clients and their config files, as the API shows them: which servers each client starts, and
// whether each goes through Countersign. Values of env and headers never appear here (names only).

export const CLIENT_IDS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'codex',
  'gemini',
  'cline',
  'roo-code',
  'continue',
  'crush',
  'goose',
  'kiro',
  'lmstudio',
  'opencode',
  'zed',
  'amazon-q',
  'copilot-cli',
] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export type ConfigScope = 'user' | 'project';

export interface ClientScanOptions {
  /**
   * A project folder whose client files (.vscode/mcp.json, .mcp.json…) are looked at too. Absolute.
   * Without it, the folder `countersign serve` was started in, if any.
   */
  project?: string;
}

export interface WrapOptions extends ClientScanOptions {
  /** Only these entries (by their name in the client's file); all others are left alone. */
  only?: string[];
}

export interface ClientView {
  id: ClientId;
  name: string;
  /** True when at least one of its config files exists. */
  found: boolean;
  files: ClientFileView[];
  /** Every path looked at, found or not. */
  looked: string[];
  /** Countersign has wrapped one of its files and can put it back. */
  canUnwrap: boolean;
}

export interface ClientFileView {
  path: string;
  scope: ConfigScope;
  /** The project folder, for project files. */
  project?: string;
  format: 'json' | 'toml' | 'yaml';
  /** Why the file could not be read; Countersign does not touch it then. */
  error?: string;
  /** Why Countersign will not write the file (the person made it read-only), with the fix. */
  readOnly?: string;
  servers: ClientServerView[];
  /** When Countersign last wrapped it (and has not unwrapped it since). */
  wrappedAt?: string;
}

export type ClientServerState =
  /** Starts through Countersign. */
  | 'wrapped'
  /** Starts directly, unprotected; `wrap` can change that. */
  | 'direct'
  /** Starts directly, and `wrap` would refuse it (see `note`). */
  | 'unsupported';

export interface ClientServerView {
  /** The entry's name in the client's file. */
  name: string;
  /** Where in the file, when not the main list (Claude Code's per-project servers). */
  group?: string;
  transport: 'stdio' | 'http';
  commandLine?: string[];
  url?: string;
  cwd?: string;
  envNames: string[];
  headerNames: string[];
  state: ClientServerState;
  /** For wrapped entries: the Countersign server it starts. */
  countersignServer?: string;
  /** Why it cannot be wrapped, or what needs attention. */
  note?: string;
}

export type WrapAction =
  /** Added to Countersign under `server`, and the entry rewritten. */
  | 'add'
  /** Countersign already has this exact server as `server`: only the entry is rewritten. */
  | 'reuse'
  /** Already goes through Countersign: nothing to do. */
  | 'already'
  /** Goes through Countersign with a command that a registry resolves (npx countersign): rewritten. */
  | 'update'
  /** Left as is, for `reason`. */
  | 'refuse'
  /** Not named in --only. */
  | 'skip';

export interface WrapEntryPlan {
  entry: string;
  group?: string;
  action: WrapAction;
  server?: string;
  /** Why the server got another name, or what else to know. */
  note?: string;
  reason?: string;
}

export interface FilePlan {
  path: string;
  scope: ConfigScope;
  /** Why the file cannot be read; Countersign leaves it alone. */
  error?: string;
  /** Why Countersign will not write the file (the person made it read-only), with the fix. */
  readOnly?: string;
  /**
   * Unified diff of the changed entries (values of env and headers masked), lines shown without their
   * line ends. Empty when nothing changes.
   */
  diff: string;
  /** The file's line ends when not plain LF; the written file keeps them. */
  lineEnds?: 'crlf' | 'mixed';
  entries: WrapEntryPlan[];
}

export interface WrapPreview {
  client: ClientId;
  files: FilePlan[];
  /** How many entries would change. */
  changes: number;
  /** Hash of exactly this plan: wrapClient refuses when it no longer matches. */
  planHash: string;
}

export interface WrapResult {
  client: ClientId;
  files: Array<{ path: string; backup: string; wrapped: string[] }>;
  added: string[];
  reused: string[];
}

export interface UnwrapEntryResult {
  entry: string;
  group?: string;
  /** restored: back to its value before the wrap; kept: changed since, so left as it is. */
  outcome: 'restored' | 'kept';
  why?: string;
}

export interface UnwrapFilePlan {
  path: string;
  /** exact: the whole file goes back to its bytes before the wrap; entries: only Countersign's entries are reverted. */
  how: 'exact' | 'entries' | 'missing';
  diff: string;
  lineEnds?: 'crlf' | 'mixed';
  entries: UnwrapEntryResult[];
}

export interface UnwrapPreview {
  client: ClientId;
  files: UnwrapFilePlan[];
  planHash: string;
}

export interface UnwrapResult {
  client: ClientId;
  files: Array<UnwrapFilePlan & { backup?: string }>;
  /** Countersign servers the wrap added; they stay (other clients may use them). */
  servers: string[];
}
