// A server's limits profile: what the person lets it reach (network, files, environment), and the
// pure logic around it: is a change looser (consent again) or tighter (applies at once), how it reads
// on a badge, and the defaults Countersign offers (never applies on its own).
// Processes are not a setting: wherever the sandbox works, every server runs in its own PID namespace.
import { ALL_NETWORK_ENV, defaultNetworkEnv, passedEnvNames } from './network-env.js';

/** 'none' or everything. A host allowlist may come later; it is not built yet. */
export type NetworkLimit = 'none' | 'unrestricted';

/** Paths of the person's the server may read, and may write; nothing else of theirs is visible. */
export interface FilesystemLimit {
  read: string[];
  write: string[];
}

export interface LimitsProfile {
  network: NetworkLimit;
  /** 'host': the filesystem as it is (no limit). */
  filesystem: 'host' | FilesystemLimit;
  /** Names of Countersign's own environment variables passed on besides the scrubbed set. */
  passEnv: string[];
  /**
   * Network variables (proxies, CA files, package indexes: network-env.ts) that pass by default and
   * this server does not get; `*` for all of them. Absent: it gets every one that is set.
   */
  noPassEnv?: string[];
}

export const NO_LIMITS: LimitsProfile = { network: 'unrestricted', filesystem: 'host', passEnv: [] };

/** What this machine can enforce, found by a real probe at start (electron/broker/upstream/sandbox/detect.ts). */
export type SandboxSupport =
  /**
   * `network`: false when bubblewrap runs but cannot make a network namespace here (`networkReason`).
   * `nestedUserns`: 'blocked' (bubblewrap 0.8+: `--disable-userns`), or why it is not. `fix`: what
   * would make the missing part work.
   */
  | { kind: 'bubblewrap'; path: string; network: boolean; networkReason?: string; nestedUserns: 'blocked' | { open: string }; fix?: string }
  | { kind: 'sandbox-exec'; path: string }
  /** `reason`: why there is none, in words; `fix`: how to get one (a package to install, a kernel setting). */
  | { kind: 'none'; reason: string; fix?: string };

/** How one limit stands at run time. A limit that is 'not enforced' must never remove friction. */
export type LimitState = 'enforced' | 'not enforced' | 'no limit';

/** One of Countersign's own files or folders, masked inside a server's sandbox whatever its paths say. */
export interface HiddenPath {
  /** As the server would see it (where the mask is). */
  path: string;
  /** What it is: "Countersign's data folder", "Cursor's MCP config"… */
  what: string;
}

export interface LimitsEnforcement {
  /** What enforces them: bubblewrap (Linux), sandbox-exec (macOS), or nothing. */
  sandbox: 'bubblewrap' | 'sandbox-exec' | 'none';
  /** Why some limit is not enforced (e.g. "bubblewrap is not installed"). */
  reason?: string;
  /** What would make it enforced (a package to install, a kernel setting). */
  fix?: string;
  network: LimitState;
  filesystem: LimitState;
  /** The scrubbed environment is applied everywhere, sandbox or not. */
  env: 'enforced';
  /** 'enforced': the whole process tree ends with the server (PID namespace). */
  processes: LimitState;
  /** Countersign's own files the sandbox masks from this server (data folder, keys, sockets, clients' configs). */
  hidden?: HiddenPath[];
  /** What this sandbox does not do here, though it runs (an old bubblewrap: nested user namespaces). */
  caveats?: string[];
  /** The limits are not enforced, and the person let this server run without them all the same. */
  runsWithoutLimits?: boolean;
}

/** The limits asked that this sandbox cannot enforce: a server with any does not start unless the person says so. */
export function unenforcedLimits(enforcement: LimitsEnforcement): Array<'network' | 'filesystem'> {
  return (['network', 'filesystem'] as const).filter((k) => enforcement[k] === 'not enforced');
}

/** Collapses `//`, `.` and `..` and drops a trailing slash: `/a/./b/../c/` → `/a/c`. */
export function normalizePath(path: string): string {
  const parts: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
}

/** True when `path` is `root` or lies inside it. */
export function isWithin(path: string, root: string): boolean {
  const p = normalizePath(path);
  const r = normalizePath(root);
  return r === '/' || p === r || p.startsWith(`${r}/`);
}

/** Reasons the profile cannot be used; empty when it can. */
export function limitsProblems(limits: LimitsProfile): string[] {
  const problems: string[] = [];
  if (limits.filesystem !== 'host') {
    for (const p of [...limits.filesystem.read, ...limits.filesystem.write]) {
      if (!p.startsWith('/')) problems.push(`'${p}' is not an absolute path`);
      else if (p.includes('\0')) problems.push('a path holds a NUL character');
    }
  }
  for (const name of limits.passEnv) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) problems.push(`'${name}' is not a variable name`);
  for (const name of limits.noPassEnv ?? [])
    if (name !== ALL_NETWORK_ENV && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) problems.push(`'${name}' is not a variable name`);
  return problems;
}

function covered(path: string, roots: string[]): boolean {
  return roots.some((r) => isWithin(path, r));
}

/** True when `next` lets the server do anything `approved` did not: it needs the person's consent again. */
export function isLooser(next: LimitsProfile, approved: LimitsProfile): boolean {
  if (next.network === 'unrestricted' && approved.network === 'none') return true;
  // The network variables count as passed unless taken away (noPassEnv).
  const passed = new Set(passedEnvNames(approved));
  if (passedEnvNames(next).some((n) => !passed.has(n))) return true;
  if (approved.filesystem === 'host') return false;
  if (next.filesystem === 'host') return true;
  const { read, write } = approved.filesystem;
  return next.filesystem.write.some((p) => !covered(p, write)) || next.filesystem.read.some((p) => !covered(p, [...read, ...write]));
}

export function sameLimits(a: LimitsProfile, b: LimitsProfile): boolean {
  return !isLooser(a, b) && !isLooser(b, a);
}

/** A change that only takes away: it applies at once, with no consent. */
export function isTighter(next: LimitsProfile, approved: LimitsProfile): boolean {
  return !isLooser(next, approved) && !sameLimits(next, approved);
}

/** The "read-only" switch: every writable root becomes read-only. */
export function readOnly(limits: LimitsProfile): LimitsProfile {
  if (limits.filesystem === 'host') return limits;
  const { read, write } = limits.filesystem;
  return { ...limits, filesystem: { read: [...new Set([...read, ...write])], write: [] } };
}

/** `/home/ann/project` → `~/project` when `home` is /home/ann. */
export function displayPath(path: string, home?: string): string {
  const p = normalizePath(path);
  if (!home) return p;
  const h = normalizePath(home);
  return p === h ? '~' : p.startsWith(`${h}/`) ? `~${p.slice(h.length)}` : p;
}

/** The badge text: "no network · read-only ~/project · writes ~/out". */
export function summarizeLimits(limits: LimitsProfile, home?: string): string {
  const parts: string[] = [];
  if (limits.network === 'none') parts.push('no network');
  if (limits.filesystem !== 'host') {
    const { read, write } = limits.filesystem;
    if (!read.length && !write.length) parts.push('no files');
    if (read.length) parts.push(`read-only ${read.map((p) => displayPath(p, home)).join(', ')}`);
    if (write.length) parts.push(`writes ${write.map((p) => displayPath(p, home)).join(', ')}`);
  }
  if (limits.passEnv.length) parts.push(`env +${limits.passEnv.join(', +')}`);
  if (limits.noPassEnv?.length) {
    const kept = defaultNetworkEnv(limits.noPassEnv).filter((n) => !limits.passEnv.includes(n));
    parts.push(kept.length ? `env without ${limits.noPassEnv.join(', ')}` : 'no network variables');
  }
  return parts.length ? parts.join(' · ') : 'no limits';
}

/** The badge with its truth: "(enforced)", or what is not and why. Never claims what is not there. */
export function summarizeEnforced(limits: LimitsProfile, enforcement: LimitsEnforcement, home?: string): string {
  const text = summarizeLimits(limits, home);
  const asked = (['network', 'filesystem'] as const).filter((k) => enforcement[k] !== 'no limit');
  const missing = asked.filter((k) => enforcement[k] === 'not enforced');
  if (!asked.length) return enforcement.sandbox === 'none' ? `${text} (not sandboxed: ${enforcement.reason ?? 'unknown'})` : text;
  if (!missing.length) return `${text} (enforced)`;
  return `${text} (not enforced: ${missing.join(', ')}${enforcement.reason ? `: ${enforcement.reason}` : ''})`;
}

export interface ToolHints {
  annotations?: { openWorldHint?: unknown };
}

export interface LimitsOffer {
  limits: LimitsProfile;
  /** Why each part was offered, for the person to read before accepting. */
  why: string[];
}

const FILESYSTEM_SERVER = /(^|[/@])server-filesystem(@[^/]*)?(\/|$)/;

/** The directories a filesystem server is given in its arguments (after the package or script). */
export function filesystemServerRoots(command: string, args: string[], home?: string): string[] | undefined {
  // `at` counts the command too, so `args.slice(at)` starts just after the package or script.
  const at = [command, ...args].findIndex((a) => FILESYSTEM_SERVER.test(a));
  if (at === -1) return undefined;
  const expand = (a: string): string => (home && (a === '~' || a.startsWith('~/')) ? `${home}${a.slice(1)}` : a);
  return args
    .slice(at)
    .map(expand)
    .filter((a) => a.startsWith('/'))
    .map(normalizePath);
}

/**
 * The limits Countersign suggests for a server; the person accepts or edits them. The filesystem
 * server's directories become its writable roots (read-only ones with `opts.readOnly`); a server
 * whose every tool claims `openWorldHint: false` is offered no network.
 */
export function offerLimits(config: { command: string; args?: string[] }, opts: { tools?: ToolHints[]; readOnly?: boolean; home?: string } = {}): LimitsOffer {
  const why: string[] = [];
  let limits: LimitsProfile = { ...NO_LIMITS };
  const roots = filesystemServerRoots(config.command, config.args ?? [], opts.home);
  if (roots) {
    limits.filesystem = { read: [], write: roots };
    why.push(
      roots.length ? 'a filesystem server: the directories in its arguments become its only roots' : 'a filesystem server with no directories: no files',
    );
    if (opts.readOnly) limits = readOnly(limits);
  }
  const tools = opts.tools ?? [];
  if (tools.length && tools.every((t) => t.annotations?.openWorldHint === false)) {
    limits.network = 'none';
    why.push('every tool says it does not reach the outside world (openWorldHint: false)');
  }
  return { limits, why };
}
