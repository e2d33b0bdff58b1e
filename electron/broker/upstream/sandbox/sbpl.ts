// macOS: a sandbox-exec (SBPL) profile for a limited server. Deny by default; allow the system and
// runtime read-only, the person's read and write paths, a private temp folder, and the network only
// when asked. Paths go in as -D parameters, never spliced into the profile text, so no path can
// change the profile. It cannot run on this Linux machine: its text is unit-tested instead.
// sandbox-exec has no PID namespace: process trees end through the descendant sweep (tree-sweep.ts).
// Countersign's own files are denied last (in SBPL the last matching rule wins), whatever was allowed
// before: read, write, and connecting to a socket there.

export interface SbplInput {
  network: boolean;
  /** Real paths (macOS resolves /tmp to /private/tmp before matching). */
  runtime: string[];
  read: string[];
  write: string[];
  /** A fresh folder for TMPDIR, writable. */
  tmp: string;
  /** Real paths of Countersign's own files: denied, whatever the paths above allow. */
  hidden?: string[];
  /** Real paths inside those that Countersign lends read-only (prepared packages). */
  lent?: string[];
}

const SYSTEM_READ = ['/usr', '/bin', '/sbin', '/System', '/Library/Apple', '/private/etc', '/private/var/db/timezone', '/dev'];
// Without the network, only the directory services name lookups (getpwuid) and the log need.
const QUIET_MACH = ['com.apple.system.opendirectoryd.libinfo', 'com.apple.system.logger', 'com.apple.logd', 'com.apple.system.notification_center'];

function ancestors(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.map((_, i) => `/${parts.slice(0, i).join('/')}`);
}

export function sbplProfile(input: SbplInput): { profile: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const param = (prefix: string, list: string[]): string[] =>
    list.map((p, i) => {
      params[`${prefix}${i}`] = p;
      return `(param "${prefix}${i}")`;
    });
  const readable = param('R', [...input.runtime, ...input.read]);
  const writable = param('W', [...input.write, input.tmp]);
  // Walking to a path needs the metadata of each folder above it; only those, not their siblings.
  const above = [...new Set([...input.runtime, ...input.read, ...input.write, input.tmp].flatMap(ancestors))];
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-fork)',
    '(allow process-exec)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    `(allow file-read* ${SYSTEM_READ.map((p) => `(subpath "${p}")`).join(' ')})`,
    // An SBPL rule with no filter allows everything: emit one only with its paths.
    ...(above.length
      ? [
          `(allow file-read-metadata ${param('A', above)
            .map((p) => `(literal ${p})`)
            .join(' ')})`,
        ]
      : []),
    '(allow file-write-data (literal "/dev/null") (literal "/dev/tty"))',
    ...(readable.length ? [`(allow file-read* ${readable.map((p) => `(subpath ${p})`).join(' ')})`] : []),
    `(allow file-read* file-write* ${writable.map((p) => `(subpath ${p})`).join(' ')})`,
    input.network ? '(allow mach-lookup)' : `(allow mach-lookup ${QUIET_MACH.map((n) => `(global-name "${n}")`).join(' ')})`,
    ...(input.network ? ['(allow network*)', '(allow system-socket)'] : []),
    ...hiddenRules(param('H', input.hidden ?? []), param('L', input.lent ?? [])),
  ];
  return { profile: `${lines.join('\n')}\n`, params };
}

function hiddenRules(hidden: string[], lent: string[]): string[] {
  if (!hidden.length) return [];
  const paths = hidden.map((p) => `(subpath ${p})`).join(' ');
  return [
    `(deny file-read* file-write* ${paths})`,
    `(deny network-outbound ${paths})`,
    // A package Countersign prepared for this server lives in its data folder: lent back, read-only.
    ...(lent.length ? [`(allow file-read* ${lent.map((p) => `(subpath ${p})`).join(' ')})`] : []),
  ];
}

/** sandbox-exec's arguments before the command: the profile and its parameters. */
export function sandboxExecArgs(input: SbplInput): string[] {
  const { profile, params } = sbplProfile(input);
  return ['-p', profile, ...Object.entries(params).flatMap(([k, v]) => ['-D', `${k}=${v}`])];
}
