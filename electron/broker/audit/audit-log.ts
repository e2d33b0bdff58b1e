// Append-only audit log: JSON lines, each hash-chained to the one before, rotated by size.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuditEntry, LogQuery } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import { logLimit, logMatcher } from '../../../shared/log-query.js';
import { queryFiles } from './audit-query.js';
import { LogPathAnchor, type FolderNote } from './log-path-anchor.js';

export type NewAuditEntry = Omit<AuditEntry, 'seq' | 'prev' | 'hash'>;

/** The disk refused an append (read-only, full, gone). `written` were on disk before it did. */
export class AuditWriteError extends Error {
  override name = 'AuditWriteError';
  readonly code?: string;
  /**
   * `lostInFlight`: the asynchronous write still in flight could not be finished either (see #settle):
   * its entries are not on disk and come before these.
   */
  constructor(override readonly cause: Error, readonly written: AuditEntry[], readonly lostInFlight = false) {
    super(`the audit log could not be written: ${cause.message}`);
    this.code = (cause as NodeJS.ErrnoException).code;
  }
}

const CURRENT = 'audit.jsonl';
const LOOKED = Promise.resolve();
const ROTATED = /^audit-(\d{12})(?:-(\d+))?\.jsonl$/;
const GENESIS = '0'.repeat(64);
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const TAIL_CHUNK = 64 * 1024;
const POLL_MS = 250;
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
  #chain(entries: NewAuditEntry[], last: { seq: number; hash: string }): { text: string; bytes: number; written: AuditEntry[] } {
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
      for (let done = 0; done < flight.bytes.length; ) done += fs.writeSync(fd, flight.bytes, done, flight.bytes.length - done, flight.position + done);
    } catch (error) {
      // The write in flight may have landed already: then its entries are on disk and nothing is lost.
      // Should it land only later (the disk refused us, then took it), the retry may write them twice:
      // a duplicate, never a loss.
      if (landed(flight)) return flight.resolve(flight.entries);
      this.#recover({ last: { seq: flight.entries[0]!.seq - 1, hash: flight.entries[0]!.prev }, size: flight.position, ino: this.#ino, endsWithNewline: true, firstSeq: this.#firstSeq });
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
    for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done, bytes.length - done, this.#size + done);
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
    const matches = logMatcher(query);
    const limit = logLimit(query);
    return this.#stable((files) => {
      const chunks: AuditEntry[][] = [];
      let count = 0;
      // Newest file first, so a small limit does not read the whole history.
      for (const file of [...files].reverse()) {
        if (limit !== undefined && count >= limit) break;
        const found = entriesOf(file).filter(matches);
        chunks.unshift(found);
        count += found.length;
      }
      const all = chunks.flat();
      return limit === undefined ? all : all.slice(Math.max(0, all.length - limit));
    });
  }

  /**
   * Like read(), without holding the event loop: the files are read from their ends in chunks, newest
   * first, yielding between chunks, and a limit stops the reading as soon as it is met.
   */
  query(query: LogQuery = {}): Promise<AuditEntry[]> {
    this.#beforeRead();
    return queryFiles(this.#files(), query);
  }

  verify(): { ok: boolean; entries: number; problems: string[] } {
    this.#beforeRead();
    return this.#stable((files) => {
      const problems: string[] = [];
      let entries = 0;
      let prev: { seq: number; hash: string } | undefined;
      for (const file of files) {
        const lines = readText(file).split('\n');
        if (lines.at(-1) === '') lines.pop();
        lines.forEach((line, i) => {
          const where = `${path.basename(file)} line ${i + 1}`;
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch {
            problems.push(`${where} is not valid JSON`);
            return;
          }
          const entry = asEntry(value);
          if (!entry) return void problems.push(`${where} is not an audit entry`);
          entries++;
          if (hashEntry(entry) !== entry.hash) problems.push(`${where}: hash does not match its contents`);
          if (!prev) {
            if (entry.seq !== 1) problems.push(`${where}: the log starts at seq ${entry.seq}; earlier entries are missing`);
            else if (entry.prev !== GENESIS) problems.push(`${where}: chain broken: seq 1 does not start the chain`);
          } else {
            if (entry.seq !== prev.seq + 1) problems.push(`${where}: seq jumps from ${prev.seq} to ${entry.seq}`);
            if (entry.prev !== prev.hash) {
              problems.push(`${where}: chain broken: prev of seq ${entry.seq} does not match seq ${prev.seq}`);
            }
          }
          prev = { seq: entry.seq, hash: entry.hash };
        });
      }
      return { ok: problems.length === 0, entries, problems };
    });
  }

  /**
   * Tail the log as another process writes it. Entries are delivered once each, in seq order, across
   * rotations. Without fromEnd, existing entries come first. Keeps the process alive until stopped.
   */
  follow(onEntry: (e: AuditEntry) => void, opts: { fromEnd?: boolean } = {}): () => void {
    const state = { lastSeq: 0, ino: undefined as number | undefined, offset: 0, rotated: '' };
    if (opts.fromEnd) {
      state.lastSeq = this.#lastOnDisk()?.seq ?? 0;
      const st = statOrUndefined(this.path);
      state.rotated = this.#rotatedFiles().join('\n');
      if (st) Object.assign(state, { ino: st.ino, offset: lastEntryOf(this.path).endsWithNewline ? st.size : 0 });
    }
    let stopped = false;

    const collect = (): AuditEntry[] => {
      let fd: number | undefined;
      try {
        fd = fs.openSync(this.path, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      try {
        const st = fd === undefined ? undefined : fs.fstatSync(fd);
        const out: AuditEntry[] = [];
        let { ino, offset } = state;
        const rotated = this.#rotatedFiles();
        if (!st || st.ino !== ino || st.size < offset) {
          // New, rotated or replaced: whatever we had not read yet is now in a rotated file.
          if (!st && ino === undefined && rotated.join('\n') === state.rotated) return out;
          out.push(...this.#rotatedSince(rotated, state.lastSeq));
          ino = st?.ino;
          offset = 0;
        }
        if (fd !== undefined && st && st.size > offset) {
          const buf = Buffer.alloc(st.size - offset);
          const got = fs.readSync(fd, buf, 0, buf.length, offset);
          const end = buf.subarray(0, got).lastIndexOf(0x0a) + 1; // complete lines only
          out.push(...parseLines(buf.subarray(0, end).toString('utf8')));
          offset += end;
        }
        Object.assign(state, { ino, offset, rotated: rotated.join('\n') });
        return out;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    };

    const poll = () => {
      if (stopped) return;
      let batch: AuditEntry[];
      try {
        batch = collect();
      } catch {
        return; // a rename mid-read: the next poll picks it up
      }
      for (const entry of batch) {
        if (stopped) return;
        if (entry.seq <= state.lastSeq) continue;
        state.lastSeq = entry.seq;
        onEntry(entry);
      }
    };

    let watcher: fs.FSWatcher | undefined;
    try {
      // The directory, not the file: rotation renames the file away.
      watcher = fs.watch(this.#dir, () => poll());
      watcher.on('error', () => watcher?.close());
    } catch {
      // Some file systems cannot be watched; polling alone still works.
    }
    const timer = setInterval(poll, POLL_MS);
    setImmediate(poll);
    return () => {
      stopped = true;
      clearInterval(timer);
      watcher?.close();
    };
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
    const last = tail?.entry ?? this.#lastOnDisk(false);
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
    const first = this.#firstSeq ?? firstEntryOf(this.path)?.seq ?? nextSeq;
    const stem = `audit-${String(first).padStart(12, '0')}`;
    let target = path.join(this.#dir, `${stem}.jsonl`);
    // Never overwrite an earlier file, whatever happened to the names.
    for (let n = 1; fs.existsSync(target); n++) target = path.join(this.#dir, `${stem}-${n}.jsonl`);
    this.#closeFd();
    fs.renameSync(this.path, target);
    this.#size = 0;
    this.#ino = undefined;
    this.#mode = undefined;
    this.#endsWithNewline = true;
    this.#firstSeq = undefined;
  }

  /** Rotated files, oldest first. */
  #rotatedFiles(): string[] {
    const found: { name: string; seq: number; n: number }[] = [];
    // A data folder that vanished holds no rotated files (the next append makes it again: audit-guard.ts).
    for (const name of readdirOrEmpty(this.#dir)) {
      const m = ROTATED.exec(name);
      if (m) found.push({ name, seq: Number(m[1]), n: Number(m[2] ?? 0) });
    }
    found.sort((a, b) => a.seq - b.seq || a.n - b.n);
    return found.map((f) => path.join(this.#dir, f.name));
  }

  #files(): string[] {
    const files = this.#rotatedFiles();
    return fs.existsSync(this.path) ? [...files, this.path] : files;
  }

  /** Entries after `seq` in rotated files, starting with the file that holds seq + 1. */
  #rotatedSince(rotated: string[], seq: number): AuditEntry[] {
    let start = 0;
    rotated.forEach((file, i) => {
      if (Number(ROTATED.exec(path.basename(file))?.[1]) <= seq + 1) start = i;
    });
    return rotated.slice(start).flatMap((file) => entriesOf(file).filter((e) => e.seq > seq));
  }

  #lastOnDisk(includeCurrent = true): AuditEntry | undefined {
    const files = includeCurrent ? this.#files() : this.#rotatedFiles();
    for (const file of files.reverse()) {
      const { entry } = lastEntryOf(file);
      if (entry) return entry;
    }
    return undefined;
  }

  /** Run a read over the file list again if a rotation changed it meanwhile. */
  #stable<T>(run: (files: string[]) => T): T {
    for (let attempt = 0; ; attempt++) {
      const before = this.#files();
      const result = run(before);
      if (attempt >= 3 || this.#files().join('\n') === before.join('\n')) return result;
    }
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

type Saved = { last: { seq: number; hash: string }; size: number; ino: number | undefined; endsWithNewline: boolean; firstSeq: number | undefined };

/** The entry chained after `last`, and its line. */
function chainLine(entry: NewAuditEntry, last: { seq: number; hash: string }): { full: AuditEntry; line: string } {
  const { seq: _seq, prev: _prev, hash: _hash, ...fields } = entry as Partial<AuditEntry>;
  const seq = last.seq + 1;
  // The JSON round trip drops undefined fields, so the hash covers exactly what is written. The line
  // is that same text with the hash added last (what JSON.stringify of the whole entry would write).
  const bodyText = JSON.stringify({ seq, ...fields, prev: last.hash });
  const body = JSON.parse(bodyText) as Omit<AuditEntry, 'hash'>;
  const full: AuditEntry = { ...body, hash: hashEntry(body) };
  return { full, line: `${bodyText.slice(0, -1)},"hash":"${full.hash}"}\n` };
}

/** sha256 over the entry without `hash`, keys sorted at every level so the text is stable (the one canonical JSON). */
export function hashEntry(entry: Omit<AuditEntry, 'hash'> | AuditEntry): string {
  const { hash: _hash, ...body } = entry as AuditEntry;
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function asEntry(value: unknown): AuditEntry | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { seq, prev, hash } = value as Record<string, unknown>;
  if (!Number.isInteger(seq) || (seq as number) < 1 || typeof prev !== 'string' || typeof hash !== 'string') {
    return undefined;
  }
  return value as AuditEntry;
}

function parseLine(line: string): AuditEntry | undefined {
  try {
    return asEntry(JSON.parse(line));
  } catch {
    return undefined;
  }
}

function parseLines(text: string): AuditEntry[] {
  return text.split('\n').flatMap((line) => parseLine(line) ?? []);
}

function entriesOf(file: string): AuditEntry[] {
  return parseLines(readText(file));
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The last valid entry, reading only as much of the end of the file as it takes. */
function lastEntryOf(file: string): { entry?: AuditEntry; damaged: boolean; endsWithNewline: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { damaged: false, endsWithNewline: true };
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return { damaged: false, endsWithNewline: true };
    for (let window = Math.min(size, TAIL_CHUNK); ; window = Math.min(size, window * 4)) {
      const buf = Buffer.alloc(window);
      fs.readSync(fd, buf, 0, window, size - window);
      const endsWithNewline = buf[window - 1] === 0x0a;
      const lines = buf.toString('utf8').split('\n');
      if (window < size) lines.shift(); // may start mid-line
      let damaged = false;
      for (const line of lines.reverse()) {
        if (line.trim() === '') continue;
        const entry = parseLine(line);
        if (entry) return { entry, damaged, endsWithNewline };
        damaged = true;
      }
      if (window === size) return { damaged, endsWithNewline };
    }
  } finally {
    fs.closeSync(fd);
  }
}

function firstEntryOf(file: string): AuditEntry | undefined {
  return entriesOf(file)[0];
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
