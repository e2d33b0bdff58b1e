// Who holds a TCP port: on Linux from /proc (the listening socket's inode, then the process whose
// descriptor is that socket), elsewhere from `lsof` where it is installed. Whether it is Countersign (a
// broker of another data folder, or of this one) is read from its command line.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface PortHolder {
  pid?: number;
  /** Its command line, as `ps` shows it. */
  command?: string;
  /** The owner, when the process itself cannot be seen (another user's, without root). */
  uid?: number;
  /** It is a Countersign broker; `dataDir` when its command line or environment says which. */
  countersign?: { dataDir?: string };
}

const LISTEN = '0A';

/** Listening sockets on `port`: inode and owner, from /proc/net/tcp and tcp6. */
function listeningInodes(port: number, read: (file: string) => string): Array<{ inode: string; uid: number }> {
  const out: Array<{ inode: string; uid: number }> = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = read(table);
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== LISTEN) continue;
      const local = f[1]!;
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) !== port) continue;
      out.push({ inode: f[9]!, uid: Number(f[7]) });
    }
  }
  return out.filter((s) => s.inode !== '0');
}

function pidOfSocket(inode: string): number | undefined {
  const want = `socket:[${inode}]`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === want) return Number(pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

function procCommand(pid: number): { argv: string[]; env: Record<string, string> } | undefined {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    let env: Record<string, string> = {};
    try {
      env = Object.fromEntries(
        readFileSync(`/proc/${pid}/environ`, 'utf8')
          .split('\0')
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      );
    } catch {
      // another user's environment: its command line still tells
    }
    return { argv, env };
  } catch {
    return undefined;
  }
}

const CLI_FILES = /(^|[\\/])(countersign(\.mjs|\.exe)?|cli\.mjs|entry\.mjs)$/i;

/** A Countersign broker, from its command line: the CLI's `serve`, or the desktop app. */
export function countersignOf(argv: string[], env: Record<string, string> = {}): PortHolder['countersign'] {
  const at = argv.findIndex((a) => CLI_FILES.test(a) && /countersign/i.test(a));
  if (at === -1) return undefined;
  const rest = argv.slice(at + 1);
  if (rest.includes('connect')) return undefined;
  const flag = rest.findIndex((a) => a === '--data-dir' || a.startsWith('--data-dir='));
  const dataDir = flag === -1 ? env.COUNTERSIGN_HOME || undefined : rest[flag]!.includes('=') ? rest[flag]!.slice('--data-dir='.length) : rest[flag + 1];
  return dataDir ? { dataDir } : {};
}

function fromLsof(port: number): PortHolder | undefined {
  try {
    const out = execFileSync('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fp'], { encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = Number(/^p(\d+)$/m.exec(out)?.[1]);
    if (!Number.isInteger(pid)) return undefined;
    let command: string | undefined;
    try {
      command = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      // gone meanwhile
    }
    return { pid, command, ...(command && countersignOf(command.split(/\s+/)) ? { countersign: countersignOf(command.split(/\s+/)) } : {}) };
  } catch {
    return undefined; // no lsof here, or nothing it can see
  }
}

/** The process listening on `port`, as far as this user can see; undefined when nothing says. */
export function portHolder(port: number, platform: NodeJS.Platform = process.platform): PortHolder | undefined {
  if (platform === 'linux') {
    const sockets = listeningInodes(port, (f) => readFileSync(f, 'utf8'));
    for (const s of sockets) {
      const pid = pidOfSocket(s.inode);
      if (pid === undefined) continue;
      const proc = procCommand(pid);
      const countersign = proc && countersignOf(proc.argv, proc.env);
      return { pid, ...(proc ? { command: proc.argv.join(' ') } : {}), ...(countersign ? { countersign } : {}) };
    }
    if (sockets.length) return { uid: sockets[0]!.uid };
  }
  return fromLsof(port);
}

/** "pid 1234 (node /srv/app.js)", "another Countersign broker (pid 1234, data folder /x)"… */
export function describeHolder(holder: PortHolder | undefined): string {
  if (!holder) return 'another program (this user cannot see which)';
  if (holder.pid === undefined) return `a process of another user (uid ${holder.uid}), which this user cannot see`;
  const command = holder.command ? `: ${holder.command.length > 200 ? `${holder.command.slice(0, 200)}…` : holder.command}` : '';
  if (holder.countersign) {
    return `another Countersign broker (pid ${holder.pid}, data folder ${holder.countersign.dataDir ?? 'its default one'}${command})`;
  }
  return `pid ${holder.pid}${command ? ` (${command.slice(2)})` : ''}`;
}
