// What `countersign doctor` (and the Clients view) finds: plain data, one finding per thing checked,
// each problem with its fix. The shape is stable for scripts (`doctor --json`, docs/api.md).

export type DoctorArea = 'broker' | 'data-folder' | 'clients' | 'servers' | 'sandbox' | 'keyring' | 'store' | 'policy' | 'ports';

/** ok: checked and fine; note: worth knowing; warning: may bite later; problem: something does not work now. */
export type DoctorLevel = 'ok' | 'note' | 'warning' | 'problem';

export interface DoctorFinding {
  area: DoctorArea;
  /** Stable, for scripts: `broker.not-running`, `client.node-missing`… (docs/api.md lists them). */
  code: string;
  level: DoctorLevel;
  /** One sentence. */
  summary: string;
  /** More about it, when there is more to say. */
  detail?: string;
  /** What to do: a command where there is one. Every warning and problem has one. */
  fix?: string;
  /** What it is about. */
  subject?: { client?: string; file?: string; entry?: string; server?: string; path?: string; pid?: number; port?: number };
}

export interface DoctorBroker {
  running: boolean;
  pid?: number;
  version?: string;
  /** The local socket `connect` and the CLI use. */
  socket: string;
  /** Set when a broker runs: the CLI could open the socket, and read the run's secret to prove itself. */
  socketReachable?: boolean;
  secretReadable?: boolean;
  httpUrl?: string;
}

export interface DoctorReport {
  /** The shape's version: fields are only ever added within one version. */
  version: 1;
  /** Countersign's version. */
  countersign: string;
  dataDir: string;
  checkedAt: string;
  broker?: DoctorBroker;
  findings: DoctorFinding[];
}

const ORDER: Record<DoctorLevel, number> = { problem: 0, warning: 1, note: 2, ok: 3 };

/** Problems first, then warnings, notes, and what is fine; the areas in their order within each. */
export function sortFindings(findings: DoctorFinding[]): DoctorFinding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => ORDER[a.f.level] - ORDER[b.f.level] || a.i - b.i)
    .map((x) => x.f);
}

/** The worst level among the findings ('ok' when there are none). */
export function worstLevel(findings: DoctorFinding[]): DoctorLevel {
  return findings.reduce<DoctorLevel>((worst, f) => (ORDER[f.level] < ORDER[worst] ? f.level : worst), 'ok');
}
