// Finds the agent that started `connect`, past the launchers between them (npx, npm exec, sh -c, env,
// uvx, node running npm's own scripts…): each of those is a separate process per server, so keying by
// `connect`'s parent would give every server of one agent its own history. Walking too far (a
// launcher's parent, or unknown) only makes more sessions share a history, never fewer.
// Linux reads /proc; macOS reads one `ps` table; elsewhere (Windows) the agent stays unknown.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AgentProcess } from '../broker/calls/client-key.js';

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** When the process started, in whatever unit the OS gives (opaque, compared for equality). */
  start: string;
  /** The command line; npm replaces its own with its title ("npm exec …"). */
  argv: string[];
}

export type ProcReader = (pid: number) => ProcInfo | undefined;

const MAX_DEPTH = 16;
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox']);
/** Programs that only start another program and wait for it. */
const ALWAYS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx', 'env', 'nice', 'nohup', 'timeout', 'stdbuf', 'setsid', 'volta-shim', 'corepack']);
/** Package managers when they run a package's command rather than being the agent themselves. */
const RUN_VERBS: Record<string, Set<string>> = {
  npm: new Set(['exec', 'x', 'run', 'run-script', 'start']),
  pnpm: new Set(['dlx', 'exec', 'run']),
  yarn: new Set(['dlx', 'exec', 'run']),
  bun: new Set(['x', 'run']),
  uv: new Set(['run', 'tool']),
};
/** Node running a package manager's own script (npm's bin/npx-cli.js and friends). */
const MANAGER_SCRIPT = /(?:^|[\\/])(?:npx|npm|pnpm|pnpx|yarn|corepack)(?:-cli)?(?:\.c?js)?$/i;

function programName(arg0: string): string {
  const base = arg0.split(/[\\/]/).pop() ?? '';
  return base.replace(/\.exe$/i, '').toLowerCase();
}

export function isLauncher(info: Pick<ProcInfo, 'argv'>): boolean {
  const argv = info.argv.filter((a) => a !== '');
  if (!argv.length) return false;
  // npm sets its title over its argv: "npm exec countersign connect fs" arrives as one string.
  const words = argv[0]!.includes(' ') && argv.length === 1 ? argv[0]!.split(' ') : argv;
  const name = programName(words[0]!);
  const args = words.slice(1);
  if (ALWAYS.has(name)) return true;
  const verbs = RUN_VERBS[name];
  if (verbs) return args.some((a) => verbs.has(a));
  if (SHELLS.has(name)) return args.some((a) => /^-[a-z]*c[a-z]*$/i.test(a));
  if (name === 'cmd') return args.some((a) => /^\/[ck]$/i.test(a));
  if (name === 'node' || name === 'nodejs') {
    const script = args.find((a) => !a.startsWith('-'));
    return script !== undefined && MANAGER_SCRIPT.test(script);
  }
  return false;
}

/** The first process above `from` that is not a launcher; undefined when none can be told. */
export function findAgent(from: number, read: ProcReader): AgentProcess | undefined {
  let pid = from;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    // pid 1 is init or launchd: whoever started `connect` is gone, or was never seen.
    if (!Number.isInteger(pid) || pid <= 1) return undefined;
    const info = read(pid);
    if (!info) return undefined;
    if (!isLauncher(info)) return { pid: info.pid, start: info.start };
    pid = info.ppid;
  }
  return undefined;
}

export function readLinuxProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid … starttime(22) …": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv.at(-1) === '') argv.pop();
    return { pid, ppid: Number(fields[1]), start: fields[19] ?? '', argv };
  } catch {
    return undefined;
  }
}

/** One `ps` listing of every process (macOS, BSD): pid, ppid, start time, command line. */
export function psTable(output: string): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  for (const line of output.split('\n')) {
    // lstart is five words: "Tue Dec  2 18:54:01 2025".
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+\s+\S+\s+\d+\s+[\d:]+\s+\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    table.set(pid, { pid, ppid: Number(m[2]), start: m[3]!.replace(/\s+/g, ' '), argv: m[4]!.trim().split(/\s+/) });
  }
  return table;
}

/** The agent above this process, read from the OS; undefined where it cannot be told. */
export function currentAgent(platform: NodeJS.Platform = process.platform, ppid: number = process.ppid): AgentProcess | undefined {
  if (platform === 'linux') return findAgent(ppid, readLinuxProc);
  if (platform === 'darwin' || platform.endsWith('bsd')) {
    try {
      // Loaded only here: node:child_process costs every `connect` most of a megabyte.
      const { execFileSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
      const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,lstart=,args='], { encoding: 'utf8', timeout: 2000, env: { ...process.env, LC_ALL: 'C' } });
      const table = psTable(out);
      return findAgent(ppid, (pid) => table.get(pid));
    } catch {
      return undefined;
    }
  }
  // Windows: no cheap parent chain from Node (documented): the agent stays unknown.
  return undefined;
}
