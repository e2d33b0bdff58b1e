// Append-only audit log: JSON lines, each hash-chained to the one before (audit-entry.ts), rotated by
// size (audit-rotation.ts). This is its writer; its reads are in audit-read.ts, audit-query.ts and
// audit-follow.ts, each run after the writer has put on disk everything appended before it.
import fs from 'node:fs';
import path from 'node:path';
import type { AuditEntry, LogQuery } from '../../../shared/api.js';
import { chainLine, GENESIS, type ChainEnd, type NewAuditEntry } from './audit-entry.js';
import { lastEntryOf, statOrUndefined } from './audit-files.js';
import { followLog } from './audit-follow.js';
import { queryFiles } from './audit-query.js';
import { readEntries, verifyFiles, type Verification } from './audit-read.js';
import { CURRENT, lastOnDisk, logFiles, rotateAway, rotatedFiles, stable } from './audit-rotation.js';
import { LogPathAnchor, type FolderNote } from './log-path-anchor.js';

/** What an append takes: an entry before it is chained. */
export type { NewAuditEntry } from './audit-entry.js';

/** The disk refused an append (read-only, full, gone). `written` were on disk before it did. */
export class AuditWriteError extends Error {
  override name = 'AuditWriteError';
  readonly code?: string;
  /**
   * `lostInFlight`: the asynchronous write still in flight could not be finished either (see #settle):
   * its entries are not on disk and come before these.
   */
  constructor(
    override readonly cause: Error,
    readonly written: AuditEntry[],
    readonly lostInFlight = false,
  ) {
    super(`the audit log could not be written: ${cause.message}`);
    this.code = (cause as NodeJS.ErrnoException).code;
  }
}

const LOOKED = Promise.resolve();
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** Written in place at our own end of the file, not with O_APPEND, and read back when that fails: see #settle. */
const WRITE_FLAGS = fs.constants.O_RDWR | fs.constants.O_CREAT;

/** A descriptor of the log and how many asynchronous writes still use it: its number must not be reused under them. */
interface OpenFile {
  fd: number;
  busy: number;
  retired: boolean;
  /** The folders of its path, kept open: while none changed, the path still names this file (log-path-anchor.ts). */
  anchor?: LogPathAnchor;
}

/** The one asynchronous write whose bytes are not known to be on disk yet. */
interface InFlight {
  file: OpenFile;
  bytes: Buffer;
  position: number;
  entries: AuditEntry[];
  settled: boolean;
  resolve(entries: AuditEntry[]): void;
  reject(error: AuditWriteError): void;
}

export class AuditLog {
  readonly path: string;
  readonly #dir: string;
  readonly #maxBytes: number;
  // What this writer last saw on disk; re-read whenever the file differs (another writer, a rotation).
  #last = { seq: 0, hash: GENESIS };
  #size = 0;
  #ino: number | undefined;
  #mode: number | undefined;
  /** The current file, kept open for appends: one write per batch instead of open, write and close. */
  #file: OpenFile | undefined;
  #inFlight: InFlight | undefined;
  /** Bumped by every change of what this writer knows of the file: a look at it taken before is stale. */
  #generation = 0;
  #looked: { generation: number; st: fs.Stats | undefined; note?: FolderNote } | undefined;
  #endsWithNewline = true;
  #firstSeq: number | undefined;
  /** Every file of the log, oldest first. */
  readonly #files = (): string[] => logFiles(this.#dir, this.path);
  /** Runs before every read and append: the broker writes its batched call entries here first. */
  beforeAccess?: () => void;

  static open(dir: string, opts: { maxBytes?: number } = {}): { log: AuditLog; warnings: string[] } {
    const log = new AuditLog(dir, opts.maxBytes ?? DEFAULT_MAX_BYTES);
    return { log, warnings: log.#load() };
  }

  private constructor(dir: string, maxBytes: number) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.#dir = dir;
    this.#maxBytes = maxBytes;
    this.path = path.join(dir, CURRENT);
  }

  append(entry: NewAuditEntry): AuditEntry {
    return this.appendMany([entry])[0]!;
  }

  /**
   * Appends entries in order with one check of the file and one write (rotating first when it would
   * overflow). When the disk refuses, throws an AuditWriteError naming the entries already on disk;
   * the chain then continues from what the disk holds, so a later append never links to a lost entry.
   */
  appendMany(entries: NewAuditEntry[]): AuditEntry[] {
    this.beforeAccess?.();
    this.#settle();
    return this.#appendNow(entries, statOrUndefined(this.path));
  }

  /**
   * Looks at the file without holding the event loop, for the appendManyAsync that follows (anything
   * this writer does to the file in between makes the look stale, and that append looks again). Not
   * needed while the folders of its path vouch for it (#sameFile): the append checks them itself.
   */
  lookAtFile(): Promise<void> {
    if (this.#file?.anchor?.trusted) return LOOKED;
    return new Promise((resolve) => {
      const look = (tries: number): void => {
        const generation = this.#generation;
        const note = this.#file?.anchor?.note();
        fs.stat(this.path, (error, st) => {
          // Written to meanwhile (synchronously): that look says nothing of the file now.
          if (generation !== this.#generation && tries < 3) return look(tries + 1);
          if (!error || error.code === 'ENOENT') this.#looked = { generation, st: error ? undefined : st, note };
          resolve();
        });
      };
      look(0);
    });
  }

  /**
   * Whether the file at the path is still the one kept open, as this writer left it, known without a
   * look at the path: no folder on it changed (so no name on it was made, removed or renamed), the file
   * still has a name, and its size and mode are ours (no other writer, not made read-only).
   */
  #sameFile(): boolean {
    const file = this.#file;
    if (!file?.anchor?.unchanged()) return false;
    const st = fs.fstatSync(file.fd);
    return st.nlink > 0 && st.size === this.#size && st.mode === this.#mode;
  }

  /** Whether the last look still tells what the file is (nothing was written or loaded since). */
  hasFreshLook(): boolean {
    return this.#looked?.generation === this.#generation;
  }

  /**
   * Appends like appendMany, with the write asynchronous: chained and given its place in the file now,
   * on disk when the promise resolves (rejects with an AuditWriteError when the disk refuses it). One at
   * a time (audit-batch.ts). Whatever reads or appends synchronously meanwhile finishes this write first.
   * Neither flushes the broker's batch: it is the batch being written.
   */
  appendManyAsync(entries: NewAuditEntry[]): Promise<AuditEntry[]> {
    try {
      this.#settle(); // none is in flight when the batch calls; should one be, it goes first
      const looked = this.#looked?.generation === this.#generation ? this.#looked : undefined;
      this.#looked = undefined;
      if (!this.#sameFile()) {
        const { st, note } = looked ?? { note: this.#file?.anchor?.note(), st: statOrUndefined(this.path) };
        if (this.#differs(st)) this.#load();
        else this.#file?.anchor?.adopt(note);
      }
      const chained = this.#chain(entries, this.#last);
      // Rotating is rare and renames files: done the synchronous way.
      if (this.#size > 0 && this.#size + chained.bytes > this.#maxBytes) return Promise.resolve(this.#appendNow(entries, statOrUndefined(this.path)));
      return this.#writeAsync(chained);
    } catch (error) {
      return Promise.reject(error instanceof AuditWriteError ? error : new AuditWriteError(error as Error, []));
    }
  }

  #differs(st: fs.Stats | undefined): boolean {
    // A changed mode reopens too: a file made read-only must refuse us as it would a fresh open.
    return (st?.size ?? 0) !== this.#size || st?.ino !== this.#ino || st?.mode !== this.#mode;
  }

  /** The lines of `entries` chained after `last`, without touching the state of the writer. */
  #chain(entries: NewAuditEntry[], last: ChainEnd): { text: string; bytes: number; written: AuditEntry[] } {
    let text = '';
    let bytes = 0;
    const written: AuditEntry[] = [];
    for (const entry of entries) {
      const { full, line } = chainLine(entry, last);
      text += line;
      bytes += Buffer.byteLength(line);
      last = full;
      written.push(full);
    }
    return { text, bytes, written };
  }

  #writeAsync(chained: { text: string; written: AuditEntry[] }): Promise<AuditEntry[]> {
    const { written } = chained;
    if (!written.length) return Promise.resolve(written);
    const saved = this.#saved();
    const bytes = Buffer.from((this.#endsWithNewline ? '' : '\n') + chained.text);
    const file = this.#open();
    if (this.#size === 0) this.#firstSeq = written[0]!.seq;
    const position = this.#size;
    // The place in the file is taken now: what is appended meanwhile goes after it.
    this.#size += bytes.length;
    this.#endsWithNewline = true;
    const lastEntry = written.at(-1)!;
    this.#last = { seq: lastEntry.seq, hash: lastEntry.hash };
    this.#generation++;
    return new Promise<AuditEntry[]>((resolve, reject) => {
      const flight: InFlight = { file, bytes, position, entries: written, settled: false, resolve, reject };
      this.#inFlight = flight;
      file.busy++;
      const step = (done: number): void => {
        fs.write(file.fd, bytes, done, bytes.length - done, position + done, (error, n) => {
          if (!error && done + n < bytes.length) return step(done + n);
          file.busy--;
          if (file.retired) this.#release(file);
          if (flight.settled) return; // finished synchronously meanwhile (#settle)
          flight.settled = true;
          this.#inFlight = undefined;
          if (!error) return resolve(written);
          this.#recover(saved);
          reject(new AuditWriteError(error, []));
        });
      };
      step(0);
    });
  }

  /**
   * Finishes the write in flight now, before anything reads the log or writes after it: the same bytes
   * at the same place, so whichever of the two lands last changes nothing (why the file is written in
   * place and not with O_APPEND). Throws an AuditWriteError marked lostInFlight when the disk refuses.
   */
  #settle(): void {
    const flight = this.#inFlight;
    if (!flight) return;
    this.#inFlight = undefined;
    flight.settled = true;
    try {
      const { fd } = flight.file;
      for (let done = 0; done < flight.bytes.length;) done += fs.writeSync(fd, flight.bytes, done, flight.bytes.length - done, flight.position + done);
    } catch (error) {
      // The write in flight may have landed already: then its entries are on disk and nothing is lost.
      // Should it land only later (the disk refused us, then took it), the retry may write them twice:
      // a duplicate, never a loss.
      if (landed(flight)) return flight.resolve(flight.entries);
      this.#recover({
        last: { seq: flight.entries[0]!.seq - 1, hash: flight.entries[0]!.prev },
        size: flight.position,
        ino: this.#ino,
        endsWithNewline: true,
        firstSeq: this.#firstSeq,
      });
      const failure = new AuditWriteError(error as Error, [], true);
      flight.reject(failure);
      throw failure;
    }
    flight.resolve(flight.entries);
  }

  #saved(): Saved {
    return { last: this.#last, size: this.#size, ino: this.#ino, endsWithNewline: this.#endsWithNewline, firstSeq: this.#firstSeq };
  }

  /** After a refused write: continue from what the disk holds (or, unreadable, from before the write). */
  #recover(saved: Saved): void {
    try {
      this.#load();
    } catch {
      ({ last: this.#last, size: this.#size, ino: this.#ino, endsWithNewline: this.#endsWithNewline, firstSeq: this.#firstSeq } = saved);
    }
  }

  #appendNow(entries: NewAuditEntry[], st: fs.Stats | undefined): AuditEntry[] {
    if (this.#differs(st)) this.#load();
    this.#generation++;
    const written: AuditEntry[] = [];
    let durable = 0;
    const saved = this.#saved();
    try {
      let text = '';
      let pending = 0;
      for (const entry of entries) {
        const { full, line } = chainLine(entry, this.#last);
        const seq = full.seq;
        // Counted as it grows: measuring the whole batch text per entry made large batches quadratic.
        const lineBytes = Buffer.byteLength(line);
        if (this.#size + pending > 0 && this.#size + pending + lineBytes > this.#maxBytes) {
          this.#write(text);
          durable = written.length;
          text = '';
          pending = 0;
          this.#rotate(seq);
        }
        text += line;
        pending += lineBytes;
        this.#last = { seq, hash: full.hash };
        written.push(full);
        if (this.#size === 0 && text === line) this.#firstSeq = seq;
      }
      this.#write(text);
      return written;
    } catch (error) {
      const onDisk = durable ? { ...saved, last: { seq: written[durable - 1]!.seq, hash: written[durable - 1]!.hash } } : saved;
      this.#recover(onDisk);
      throw new AuditWriteError(error as Error, written.slice(0, durable));
    }
  }

  #write(lines: string): void {
    if (!lines) return;
    // A line cut short by a crash is left alone; ours starts on a fresh line after it.
    const text = (this.#endsWithNewline ? '' : '\n') + lines;
    const bytes = Buffer.from(text);
    const { fd } = this.#open();
    for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done, this.#size + done);
    // Known without a second stat: what we saw before plus what we wrote (a rotation reset both).
    this.#size += bytes.length;
    this.#endsWithNewline = true;
  }

  /** Lets go of the open file (the broker closing). Appending later opens it again. */
  close(): void {
    try {
      this.#settle();
    } catch {
      // Its entries are kept by whoever wrote them (audit-guard.ts).
    }
    this.#closeFd();
  }

  /** The current file, opened (created) when it is not yet. */
  #open(): OpenFile {
    if (!this.#file) {
      // Its folders first: a change to them after this moves a ctime the anchor watches.
      const anchor = LogPathAnchor.open(this.#dir);
      let fd: number;
      try {
        fd = fs.openSync(this.path, WRITE_FLAGS, 0o600);
      } catch (error) {
        anchor?.close();
        throw error;
      }
      this.#file = { fd, busy: 0, retired: false, anchor };
      const st = fs.fstatSync(fd);
      this.#ino = st.ino;
      this.#mode = st.mode;
    }
    return this.#file;
  }

  #closeFd(): void {
    const file = this.#file;
    if (!file) return;
    this.#file = undefined;
    file.retired = true;
    this.#release(file);
  }

  /** Closes a retired descriptor once no asynchronous write uses it any more. */
  #release(file: OpenFile): void {
    file.anchor?.close();
    if (file.busy > 0 || file.fd < 0) return;
    try {
      fs.closeSync(file.fd);
    } catch {
      // Already gone with its file system: nothing to release.
    }
    file.fd = -1;
  }

  /** Oldest first. `limit` keeps the newest N matches. */
  read(query: LogQuery = {}): AuditEntry[] {
    this.#beforeRead();
    return stable(this.#files, (files) => readEntries(files, query));
  }

  /**
   * Like read(), without holding the event loop: the files are read from their ends in chunks, newest
   * first, yielding between chunks, and a limit stops the reading as soon as it is met.
   */
  query(query: LogQuery = {}): Promise<AuditEntry[]> {
    this.#beforeRead();
    return queryFiles(this.#files(), query);
  }

  verify(): Verification {
    this.#beforeRead();
    return stable(this.#files, verifyFiles);
  }

  /**
   * Tail the log as another process writes it. Entries are delivered once each, in seq order, across
   * rotations. Without fromEnd, existing entries come first. Keeps the process alive until stopped.
   */
  follow(onEntry: (e: AuditEntry) => void, opts: { fromEnd?: boolean } = {}): () => void {
    return followLog(this.#dir, this.path, onEntry, opts);
  }

  /** A read sees every entry appended before it: the broker's batch and the write in flight are written first. */
  #beforeRead(): void {
    this.beforeAccess?.();
    try {
      this.#settle();
    } catch {
      // Refused: its entries are kept by whoever wrote them (audit-guard.ts); the read shows the disk.
    }
  }

  /** Pick up seq and prev from the end of the log; report a damaged last line. */
  #load(): string[] {
    this.#closeFd();
    this.#generation++;
    const st = statOrUndefined(this.path);
    const tail = st && st.size > 0 ? lastEntryOf(this.path) : undefined;
    const last = tail?.entry ?? lastOnDisk(rotatedFiles(this.#dir));
    this.#last = last ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS };
    this.#size = st?.size ?? 0;
    this.#ino = st?.ino;
    this.#mode = st?.mode;
    this.#endsWithNewline = tail?.endsWithNewline ?? true;
    this.#firstSeq = undefined;
    if (!tail?.damaged) return [];
    return [
      `The audit log ${this.path} ends with a damaged line (likely a crash while writing). ` +
        `It was kept as is; new entries continue the chain from seq ${this.#last.seq}, and verify will report that line.`,
    ];
  }

  #rotate(nextSeq: number): void {
    this.#closeFd();
    rotateAway(this.#dir, this.path, this.#firstSeq, nextSeq);
    this.#size = 0;
    this.#ino = undefined;
    this.#mode = undefined;
    this.#endsWithNewline = true;
    this.#firstSeq = undefined;
  }
}

/** Whether the bytes of a write are in the file at their place. */
function landed(flight: InFlight): boolean {
  try {
    const back = Buffer.alloc(flight.bytes.length);
    const got = fs.readSync(flight.file.fd, back, 0, back.length, flight.position);
    return got === back.length && back.equals(flight.bytes);
  } catch {
    return false;
  }
}

type Saved = { last: ChainEnd; size: number; ino: number | undefined; endsWithNewline: boolean; firstSeq: number | undefined };
