// The snapshot store's bounds: snapshots older than the age limit go, then the oldest until the store
// is under its size limit. Blobs no kept record names are removed. The caller logs what went.
import fs from 'node:fs';
import path from 'node:path';
import type { IndexRecord } from './snapshot-index.js';
import type { SnapshotStore } from './snapshot-store.js';

export interface Bounds {
  maxBytes: number;
  maxAgeMs: number;
}

export interface Pruned {
  calls: number;
  byAge: number;
  bySize: number;
  freedBytes: number;
  storeBytes: number;
}

/** Prunes to the bounds at `now` (wall clock: snapshot times are stored as such). */
export async function prune(store: SnapshotStore, bounds: Bounds, now = Date.now()): Promise<Pruned> {
  const { records } = store.index.read();
  const befores = records.filter((r): r is Extract<IndexRecord, { type: 'before' }> => r.type === 'before');
  const hashesOf = (id: string): string[] =>
    records.flatMap((r) =>
      (r.type === 'before' || r.type === 'after') && r.id === id ? r.files.flatMap((f) => (f.state.kind === 'file' && f.state.hash ? [f.state.hash] : [])) : [],
    );
  const sizes = new Map<string, number>();
  for (const r of records) {
    if (r.type === 'before' || r.type === 'after') for (const f of r.files) if (f.state.kind === 'file' && f.state.hash) sizes.set(f.state.hash, f.state.size);
  }
  const drop = new Set<string>();
  let byAge = 0;
  for (const b of befores) {
    if (now - Date.parse(b.time) > bounds.maxAgeMs) {
      drop.add(b.id);
      byAge++;
    }
  }
  const total = (): number => {
    const live = new Set(befores.filter((b) => !drop.has(b.id)).flatMap((b) => hashesOf(b.id)));
    let n = 0;
    for (const h of live) n += sizes.get(h) ?? 0;
    return n;
  };
  let bySize = 0;
  let size = total();
  for (const b of befores) {
    if (size <= bounds.maxBytes) break;
    if (drop.has(b.id)) continue;
    drop.add(b.id);
    bySize++;
    size = total();
  }
  const before = [...new Set(sizes.keys())].reduce((n, h) => n + (sizes.get(h) ?? 0), 0);
  if (drop.size) {
    const keep = records.filter((r) => (r.type === 'undone' ? r.ids.some((id) => !drop.has(id)) : !drop.has(r.id)));
    await store.index.rewrite(keep);
  }
  const live = new Set(befores.filter((b) => !drop.has(b.id)).flatMap((b) => hashesOf(b.id)));
  await removeUnnamed(store.blobs.dir, live);
  store.addedBytes = 0;
  return { calls: drop.size, byAge, bySize, freedBytes: Math.max(0, before - size), storeBytes: size };
}

/** Blobs no record names (pruned, or left by a crash before their record was written). */
async function removeUnnamed(dir: string, live: Set<string>): Promise<void> {
  let shards: string[];
  try {
    shards = await fs.promises.readdir(dir);
  } catch {
    return;
  }
  for (const shard of shards) {
    if (shard.startsWith('.')) continue;
    for (const name of await fs.promises.readdir(path.join(dir, shard)).catch(() => [] as string[])) {
      if (!live.has(name)) await fs.promises.rm(path.join(dir, shard, name), { force: true });
    }
  }
}
