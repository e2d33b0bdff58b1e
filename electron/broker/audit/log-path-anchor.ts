// The audit log's anchor: tells, without walking a path, that a folder path still leads where it led: each folder on it, from
// the last up to the root, is kept open, and its ctime noted. An entry made, removed or renamed in a
// folder moves that folder's ctime, and so does renaming the folder itself: if none moved, every name
// on the path still names what it named, so a file opened there is still the file at its path. Only
// fstat on kept descriptors (the inode in memory): no lookup, nothing read from disk.
import fs from 'node:fs';
import path from 'node:path';

/**
 * A folder's ctime comes from a clock that may tick only every few milliseconds (kernels before 6.13):
 * a change in the tick a ctime was noted in could leave it as it was. So ctimes are trusted only once
 * a look at the path itself, taken this long after the newest of them, found it as expected (adopt).
 */
export const SETTLE_MS = 50;

const DIRECTORY = fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0);

/** The folders' ctimes at one moment, noted before a look at the path (adopt() it once that look found nothing changed). */
export interface FolderNote {
  ctimes: bigint[];
  at: number;
  newestMs: number;
}

export class LogPathAnchor {
  /** The ctimes a look at the path vouched for; none yet: nothing is vouched for. */
  #trusted: bigint[] | undefined;

  private constructor(private readonly fds: number[]) {}

  /**
   * Opens every folder of `dir` (made absolute) up to the root. Undefined where that cannot vouch for
   * the path: a symlink on it (its target's own folders are not on the path), or folders that cannot
   * be opened (Windows). Take it before opening the file whose path it is to vouch for.
   */
  static open(dir: string): LogPathAnchor | undefined {
    const absolute = path.resolve(dir);
    const fds: number[] = [];
    try {
      if (fs.realpathSync(absolute) === absolute) {
        for (let at = absolute; ; at = path.dirname(at)) {
          fds.push(fs.openSync(at, DIRECTORY));
          if (path.dirname(at) === at) break;
        }
        // A symlink put on the path while the folders were opened is seen here, or moves a ctime noted later.
        if (fs.realpathSync(absolute) === absolute) return new LogPathAnchor(fds);
      }
    } catch {
      // Not vouched for: the caller looks at the path.
    }
    for (const fd of fds) closeQuietly(fd);
    return undefined;
  }

  /** True when a look at the path vouched for the folders and none of them changed since (else trusted no more). */
  unchanged(): boolean {
    const trusted = this.#trusted;
    if (!trusted) return false;
    for (let i = 0; i < this.fds.length; i++) {
      if (this.fds[i]! < 0 || fs.fstatSync(this.fds[i]!, { bigint: true }).ctimeNs !== trusted[i]) {
        this.#trusted = undefined;
        return false;
      }
    }
    return true;
  }

  /** The ctimes now: take it just before looking at the path. */
  note(): FolderNote | undefined {
    try {
      const ctimes = this.fds.map((fd) => fs.fstatSync(fd, { bigint: true }).ctimeNs);
      const newestMs = ctimes.reduce((newest, c) => Math.max(newest, Number(c / 1_000_000n)), 0);
      return { ctimes, at: Date.now(), newestMs };
    } catch {
      return undefined; // closed meanwhile
    }
  }

  /** The look taken after `note` found the path as expected: trust those ctimes, if settled when noted. */
  adopt(note: FolderNote | undefined): void {
    if (note && note.at - note.newestMs >= SETTLE_MS && note.ctimes.length === this.fds.length) this.#trusted = note.ctimes;
  }

  get trusted(): boolean {
    return this.#trusted !== undefined;
  }

  close(): void {
    this.#trusted = undefined;
    for (let i = 0; i < this.fds.length; i++) {
      closeQuietly(this.fds[i]!);
      this.fds[i] = -1;
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Already gone with its file system.
  }
}
