// Refuses state that someone else could have written, as ssh's StrictModes does: a data folder or
// store file that is a symbolic link, is writable by group or others, or belongs to another user.
// While any is found the broker is in safe mode (store/grant-seal.ts): nothing is trusted, allowed by a
// rule or started from that state, and the status says what is wrong and the command that fixes it.
import fs from 'node:fs';
import { monotonicMs } from '../core/clock.js';

export interface HygieneProblem {
  path: string;
  /** What is wrong, as a sentence fragment: "is a symbolic link". */
  problem: string;
  /** The shell command that fixes it. */
  fix: string;
}

export interface HygieneTarget {
  path: string;
  kind: 'dir' | 'file';
}

/** Single-quoted for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function checkTargets(targets: HygieneTarget[], uid = process.getuid?.(), platform: NodeJS.Platform = process.platform): HygieneProblem[] {
  const out: HygieneProblem[] = [];
  for (const { path, kind } of targets) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(path);
    } catch {
      continue; // not there yet: it will be made private
    }
    const q = shellQuote(path);
    if (st.isSymbolicLink()) {
      out.push({
        path,
        problem: 'is a symbolic link (Countersign keeps its own state only in real files, so a link cannot point it at something another program controls)',
        fix: kind === 'dir' ? `target=$(readlink -f ${q}) && rm ${q} && mv "$target" ${q}` : `cp "$(readlink -f ${q})" ${q}.real && mv ${q}.real ${q}`,
      });
      continue;
    }
    if (platform === 'win32') continue;
    if (uid !== undefined && st.uid !== uid && st.uid !== 0) {
      out.push({ path, problem: `belongs to another user (uid ${st.uid})`, fix: `chown "$(id -u)" ${q}` });
    }
    if (st.mode & 0o022) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      out.push({ path, problem: `can be written by ${st.mode & 0o002 ? 'any user' : 'its group'} (mode ${mode})`, fix: `chmod go-w ${q}` });
    }
  }
  return out;
}

/** The safe-mode sentence for the status and the CLI. */
export function describeProblems(problems: HygieneProblem[]): string {
  const lines = problems.map((p) => `${p.path} ${p.problem}. Fix: ${p.fix}`);
  return `Countersign is in safe mode: ${lines.join(' ')} Until this is fixed, no server is trusted, no rule allows a call and no server is started from this state.`;
}

const RECHECK_MS = 1000;

/** The checks, redone at most once a second (they run on the path of every tool call). */
export class StoreHygiene {
  #checkedAt = -Infinity;
  #problems: HygieneProblem[] = [];

  constructor(private readonly targets: () => HygieneTarget[]) {}

  problems(): HygieneProblem[] {
    const now = monotonicMs();
    if (now - this.#checkedAt >= RECHECK_MS) {
      this.#checkedAt = now;
      this.#problems = checkTargets(this.targets());
    }
    return this.#problems;
  }

  /** After a fix (or in tests): look again on the next call. */
  invalidate(): void {
    this.#checkedAt = -Infinity;
  }
}
