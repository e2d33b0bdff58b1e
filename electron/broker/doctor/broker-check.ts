// The broker for a data folder, as seen from outside it: its lock (which pid), whether that process
// still runs, and what the CLI met when it tried the socket. Findings only; the CLI does the trying.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorBroker, DoctorFinding } from '../../../shared/doctor.js';
import { socketPath } from '../store/data-dir.js';
import { stillRuns } from '../store/process-identity.js';

export interface LockHolder {
  pid: number;
  startedAt: string;
  running: boolean;
}

/** Who broker.lock names, and whether that process still runs (undefined: no lock, or unreadable). */
export function lockHolder(dataDir: string): LockHolder | undefined {
  try {
    const { pid, startedAt } = JSON.parse(readFileSync(join(dataDir, 'broker.lock'), 'utf8')) as { pid?: unknown; startedAt?: unknown };
    if (!Number.isInteger(pid) || (pid as number) <= 0 || typeof startedAt !== 'string') return undefined;
    return { pid: pid as number, startedAt, running: stillRuns(pid as number, Date.parse(startedAt)) };
  } catch {
    return undefined;
  }
}

/** What the CLI met: the broker's API (and its status), no broker (so it ran the core itself), or a refusal. */
export type BrokerReach =
  | { kind: 'broker'; version: string; httpUrl?: string; pid?: number }
  | { kind: 'none'; wrappedHere: number }
  /** `closed`: this user cannot look into the data folder, so whether a broker runs is unknown. */
  | { kind: 'failed'; why: string; lock?: LockHolder; closed?: boolean };

export function brokerView(dataDir: string, reach: BrokerReach): DoctorBroker {
  const socket = socketPath(dataDir);
  if (reach.kind === 'broker')
    return { running: true, pid: reach.pid, version: reach.version, socket, socketReachable: true, secretReadable: true, httpUrl: reach.httpUrl };
  if (reach.kind === 'failed' && reach.lock?.running) return { running: true, pid: reach.lock.pid, socket, socketReachable: false };
  return { running: false, socket };
}

export function brokerFindings(dataDir: string, reach: BrokerReach): DoctorFinding[] {
  const area = 'broker' as const;
  if (reach.kind === 'broker') {
    return [
      {
        area,
        code: 'broker.running',
        level: 'ok',
        summary: `A broker runs for ${dataDir} (${[reach.pid && `pid ${reach.pid}`, `version ${reach.version}`].filter(Boolean).join(', ')}): its socket answers and this user can prove itself to it.`,
        ...(reach.httpUrl ? { detail: `Its UI and HTTP MCP endpoint: ${reach.httpUrl}` } : {}),
        subject: { path: socketPath(dataDir), ...(reach.pid ? { pid: reach.pid } : {}) },
      },
    ];
  }
  if (reach.kind === 'none') {
    return [
      {
        area,
        code: 'broker.not-running',
        level: reach.wrappedHere ? 'warning' : 'note',
        summary: `No broker is running for ${dataDir}.`,
        detail: reach.wrappedHere
          ? `${reach.wrappedHere} client ${reach.wrappedHere === 1 ? 'entry starts' : 'entries start'} through this Countersign: ${reach.wrappedHere === 1 ? 'it fails' : 'they fail'} to start ${reach.wrappedHere === 1 ? 'its server' : 'their servers'} until a broker runs.`
          : 'Clients that go through Countersign need a running broker (the desktop app, or countersign serve).',
        fix: `start one: countersign serve${dataDir ? ` --data-dir ${dataDir}` : ''} (or open the Countersign app)`,
        subject: { path: socketPath(dataDir) },
      },
    ];
  }
  if (reach.lock?.running) {
    return [
      {
        area,
        code: 'broker.unreachable',
        level: 'problem',
        summary: `A broker holds ${dataDir} (pid ${reach.lock.pid}, since ${reach.lock.startedAt}), but this command could not use it: ${reach.why}`,
        fix: `if it hangs, stop it (kill ${reach.lock.pid}) and start it again; otherwise run this as the user who runs Countersign`,
        subject: { path: socketPath(dataDir), pid: reach.lock.pid },
      },
    ];
  }
  if (reach.closed) {
    return [
      {
        area,
        code: 'broker.unknown',
        level: 'problem',
        summary: `This command cannot tell whether a broker runs for ${dataDir}: ${reach.why}`,
        fix: 'run countersign doctor as the user who runs Countersign, or use a data folder of your own: --data-dir <DIR>',
        subject: { path: dataDir },
      },
    ];
  }
  return [
    {
      area,
      code: 'broker.cannot-start',
      level: 'problem',
      summary: `No broker runs for ${dataDir}, and none can start here: ${reach.why}`,
      fix: 'fix what the data folder findings say, or use a data folder of your own: --data-dir <DIR>',
      subject: { path: socketPath(dataDir) },
    },
  ];
}
