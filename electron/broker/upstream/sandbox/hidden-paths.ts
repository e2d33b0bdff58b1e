// Countersign's own files (data folder, seal key folder, sockets, the clients' MCP configs) are never
// visible inside a server's sandbox, whatever its paths say: each one that a mount would show is
// masked where the server would see it. Matching is done on real paths (symlinks followed), so a grant
// reached through a link, a grant of a parent (home, /), or a grant that IS one of them is caught: the
// first two get a mask inside, the last is replaced by one. Only what exists is masked: a mask over a
// missing path would create it on the host.
import { realpathSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isWithin, normalizePath, type HiddenPath, type LimitsProfile, type SandboxSupport } from '../../../../shared/limits.js';
import type { Mount } from './mounts.js';

export interface HideSpec {
  /** What to hide, as Countersign names its files (the broker's protected paths plus the key folder). */
  paths: HiddenPath[];
  /** Folders inside those that Countersign itself lends, read-only only (packages prepared for servers). */
  lent?: string[];
  /** Folders inside those lent writable: a package being installed, to its installer alone. */
  lentWritable?: string[];
}

/** The file system as the masks see it; replaceable in tests. */
export interface RealFs {
  /** The real path, or undefined when nothing is there. */
  real(path: string): string | undefined;
  isDir(realPath: string): boolean;
}

export const realFs: RealFs = {
  real: (p) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  },
  isDir: (p) => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  },
};

export interface Masked {
  /** The mounts, with any that would show a hidden folder itself replaced by its mask. */
  mounts: Mount[] | 'host';
  /** Masks to lay over the mounts (and the folders lent back on top of them, host file system only). */
  masks: Mount[];
  /** What is hidden, where the server would see it. */
  hidden: HiddenPath[];
}

interface Exposure {
  /** What the mount shows, as a real path on the host. */
  real: string;
  dest: string;
  writable: boolean;
}

/** Lays masks over `mounts` ('host': the whole file system) for every hidden path they would show. */
export function maskHidden(mounts: Mount[] | 'host', spec: HideSpec, fs: RealFs = realFs): Masked {
  const hidden = spec.paths.flatMap((h) => {
    const real = fs.real(h.path);
    return real ? [{ ...h, real, dir: fs.isDir(real) }] : [];
  });
  const lent = (spec.lent ?? []).map((p) => fs.real(p)).filter((p): p is string => !!p);
  const writable = (spec.lentWritable ?? []).map((p) => fs.real(p)).filter((p): p is string => !!p);
  const masks = new Map<string, Mount & { what: string; pins: Mount[] }>();
  const mask = (dest: string, dir: boolean, what: string, pins: Mount[] = []): void => {
    const prior = masks.get(dest);
    if (prior) prior.pins.push(...pins);
    else masks.set(dest, { kind: dir ? 'mask-dir' : 'mask-file', dest, what, pins });
  };
  const kept: Mount[] = [];
  const exposures: Exposure[] = [];
  for (const m of mounts === 'host' ? [] : mounts) {
    const real = m.kind === 'ro' || m.kind === 'rw' ? fs.real(m.src) : undefined;
    // Lent means read-only: a writable mount there could change another server's code.
    const isLent = !!real && (m.kind === 'ro' ? [...lent, ...writable] : writable).some((l) => isWithin(real, l));
    const holder = real && !isLent ? hidden.find((h) => isWithin(real, h.real)) : undefined;
    // A mount of a hidden folder itself (or of something in it): replaced by the mask.
    if (holder && real) mask(m.dest, fs.isDir(real), holder.what);
    else kept.push(m);
    if (real && !holder) exposures.push({ real, dest: m.dest, writable: m.kind === 'rw' });
  }
  if (mounts === 'host') exposures.push({ real: '/', dest: '/', writable: true });
  const lendBack: Mount[] = [];
  for (const e of exposures) {
    for (const h of hidden) {
      if (h.real === e.real || !isWithin(h.real, e.real)) continue;
      const at = (real: string): string => normalizePath(join(e.dest, relative(e.real, real)));
      // Writable above the mask, a folder on the way could be moved aside (the mask goes with it) and a
      // new one put in its place: each is bound onto itself, and a mount point cannot be moved.
      const pins: Mount[] = [];
      if (e.writable) for (let d = dirname(h.real); d !== e.real && isWithin(d, e.real); d = dirname(d)) pins.push({ kind: 'rw', src: d, dest: at(d) });
      mask(at(h.real), h.dir, h.what, pins);
      // The whole file system has no mount of its own for a prepared package: lend it back, read-only.
      if (mounts === 'host')
        for (const l of lent) if (isWithin(l, h.real)) lendBack.push({ kind: 'ro', src: l, dest: normalizePath(join(e.dest, relative(e.real, l))) });
    }
  }
  // A mask inside another adds nothing.
  const all = [...masks.values()];
  const outer = all.filter((m) => !all.some((o) => o !== m && o.kind === 'mask-dir' && isWithin(m.dest, o.dest)));
  const pins = new Map(outer.flatMap((m) => m.pins).map((p) => [p.dest, p]));
  return {
    mounts: mounts === 'host' ? 'host' : kept,
    masks: [...pins.values(), ...outer.map(({ what: _what, pins: _pins, ...m }) => m), ...lendBack],
    hidden: outer.map((m) => ({ path: m.dest, what: m.what })),
  };
}

/** What a server with these limits would have hidden here (the server screen, before any start). */
export function hiddenFor(limits: LimitsProfile, support: SandboxSupport, spec: HideSpec, fs: RealFs = realFs): HiddenPath[] {
  const fsLimit = limits.filesystem;
  if (support.kind === 'none') return [];
  if (support.kind === 'sandbox-exec') {
    // macOS runs a server with no limits as it is (no sandbox); with limits, every hidden path is denied.
    if (fsLimit === 'host' && limits.network !== 'none') return [];
    return spec.paths.flatMap((h) => (fs.real(h.path) ? [{ path: fs.real(h.path)!, what: h.what }] : []));
  }
  if (fsLimit === 'host') return maskHidden('host', spec, fs).hidden;
  const grants: Mount[] = [
    ...fsLimit.read.map((p) => ({ kind: 'ro' as const, src: p, dest: normalizePath(p) })),
    ...fsLimit.write.map((p) => ({ kind: 'rw' as const, src: p, dest: normalizePath(p) })),
  ];
  return maskHidden(grants, spec, fs).hidden;
}
