// The snapshot index read as calls: which can be undone, which were, and which lines did not verify.
// Selecting the calls of an undo target (one call, or a client's/session's since a time) happens here.
import type { UndoableCall, UndoTarget } from '../../../shared/undo.js';
import { IndexForged, type IndexRead, type IndexRecord } from './snapshot-index.js';

export type Before = Extract<IndexRecord, { type: 'before' }>;
export type After = Extract<IndexRecord, { type: 'after' }>;

export interface Catalog {
  befores: Map<string, Before>;
  afters: Map<string, After>;
  undoneBy: Map<string, string>;
  /** Ids claimed by lines that do not verify. */
  forged: Set<string>;
  forgedLines: number;
}

export function catalog(read: IndexRead): Catalog {
  const cat: Catalog = { befores: new Map(), afters: new Map(), undoneBy: new Map(), forged: new Set(), forgedLines: read.forged.length };
  for (const r of read.records) {
    if (r.type === 'before' && !cat.befores.has(r.id)) cat.befores.set(r.id, r);
    else if (r.type === 'after' && !cat.afters.has(r.id)) cat.afters.set(r.id, r);
    else if (r.type === 'undone') for (const id of r.ids) cat.undoneBy.set(id, r.by);
  }
  for (const f of read.forged) if (f.id && !cat.befores.has(f.id)) cat.forged.add(f.id);
  return cat;
}

export function viewOf(b: Before, cat: Catalog, seqOf: (id: string) => number | undefined): UndoableCall {
  return {
    snapshot: b.id,
    seq: seqOf(b.id),
    time: b.time,
    server: b.server,
    tool: b.tool,
    client: b.client,
    session: b.session,
    ...(b.undoOf ? { undoOf: b.undoOf } : {}),
    files: b.files.map((f) => ({ path: f.path, role: f.role })),
    ...(cat.undoneBy.has(b.id) ? { undoneBy: cat.undoneBy.get(b.id) } : {}),
    ...(b.files.some((f) => f.state.kind === 'other' || (f.state.kind === 'file' && f.state.notKept)) ? { partial: true } : {}),
  };
}

/** The calls a target names, newest first. Throws IndexForged for a snapshot whose index entry does not verify. */
export function selectCalls(cat: Catalog, target: UndoTarget): Before[] {
  if ('seq' in target) throw new Error('a seq is resolved to its snapshot before selection');
  if ('snapshot' in target) {
    const b = cat.befores.get(target.snapshot);
    if (!b) {
      if (cat.forged.has(target.snapshot)) {
        throw new IndexForged(
          `The snapshot ${target.snapshot} is not sealed by Countersign: its index entry was written or edited outside Countersign, so undo will not use it.`,
        );
      }
      throw new Error(`No snapshot ${target.snapshot} is kept (it was pruned, or the call changed no file Countersign could tell).`);
    }
    if (cat.undoneBy.has(b.id)) throw new Error(`The call of snapshot ${b.id} was already undone (by ${cat.undoneBy.get(b.id)}); undo that undo instead.`);
    return [b];
  }
  if (target.client === undefined && target.session === undefined && target.since === undefined && target.server === undefined) {
    throw new Error('Name the calls to undo: a client, a session, a server or a time.');
  }
  const since = target.since !== undefined ? Date.parse(target.since) : undefined;
  if (since !== undefined && Number.isNaN(since)) throw new Error(`"${target.since}" is not a time (use ISO 8601, e.g. 2026-12-04T14:05:00Z).`);
  return [...cat.befores.values()]
    .filter(
      (b) =>
        !b.undoOf &&
        !cat.undoneBy.has(b.id) &&
        (target.client === undefined || b.client === target.client || b.clientKey === target.client) &&
        (target.session === undefined || b.session === target.session) &&
        (target.server === undefined || b.server === target.server) &&
        (since === undefined || Date.parse(b.time) >= since),
    )
    .reverse(); // the index is in the order calls were kept: newest first
}
