// The mount table of a limited server, before it becomes bubblewrap flags: the system read-only, a
// private /tmp and an empty home, then the person's read and write paths. Parents go before children,
// so a write path inside a read-only one stays writable, and a read path inside a write one does not.
import { lstatSync, readlinkSync } from 'node:fs';
import { normalizePath } from '../../../../shared/limits.js';

export type Mount =
  | { kind: 'ro' | 'rw'; src: string; dest: string }
  | { kind: 'tmpfs'; dest: string }
  /** Countersign's own folder or file, masked: an empty read-only folder, or a file no one can open. */
  | { kind: 'mask-dir' | 'mask-file'; dest: string }
  | { kind: 'symlink'; target: string; dest: string };

/** What the system lends every limited server, read-only: enough to run, none of the person's files. */
export const SYSTEM_PATHS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/nix/store',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/hosts',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/pki',
  '/etc/crypto-policies',
];
/** Only when the server may use the network: how to find hosts. */
export const NETWORK_PATHS = ['/etc/resolv.conf', '/etc/host.conf', '/etc/gai.conf'];

/** The file system as the mounts see it; replaceable in tests. */
export interface FsView {
  kind(path: string): 'missing' | 'symlink' | 'other';
  readlink(path: string): string;
}

export const hostFs: FsView = {
  kind: (p) => {
    try {
      return lstatSync(p).isSymbolicLink() ? 'symlink' : 'other';
    } catch {
      return 'missing';
    }
  },
  readlink: (p) => readlinkSync(p),
};

export interface MountInput {
  network: boolean;
  home: string;
  /** The runtime and the program (runtime-paths.ts): read-only. */
  runtime: string[];
  read: string[];
  write: string[];
}

/** Top-level symlinks (merged /usr: /lib → usr/lib) are recreated as links; the rest is bound. */
function systemMount(path: string, fs: FsView): Mount | undefined {
  const kind = fs.kind(path);
  if (kind === 'missing') return undefined;
  if (kind === 'symlink' && depth(path) === 1) return { kind: 'symlink', target: fs.readlink(path), dest: path };
  return { kind: 'ro', src: path, dest: path };
}

export function limitedMounts(input: MountInput, fs: FsView = hostFs): Mount[] {
  const system = [...SYSTEM_PATHS, ...(input.network ? NETWORK_PATHS : [])].map((p) => systemMount(p, fs));
  const byDest = new Map<string, Mount>();
  const add = (m: Mount | undefined): void => {
    if (!m) return;
    const prior = byDest.get(m.dest);
    // The same path asked twice: writable wins over read-only, anything over an empty tmpfs.
    if (prior && (prior.kind === 'rw' || (prior.kind === 'ro' && m.kind !== 'rw'))) return;
    byDest.set(m.dest, m);
  };
  system.forEach(add);
  add({ kind: 'tmpfs', dest: '/tmp' });
  add({ kind: 'tmpfs', dest: normalizePath(input.home) });
  for (const p of input.runtime) if (fs.kind(p) !== 'missing') add({ kind: 'ro', src: p, dest: normalizePath(p) });
  for (const p of input.read) add({ kind: 'ro', src: p, dest: normalizePath(p) });
  for (const p of input.write) add({ kind: 'rw', src: p, dest: normalizePath(p) });
  // Stable order, parents first: a child mount must land on top of its parent's.
  return [...byDest.values()].sort((a, b) => depth(a.dest) - depth(b.dest) || a.dest.localeCompare(b.dest));
}

/** Path depth, so parents are mounted before what lies inside them. */
export function depth(p: string): number {
  return p === '/' ? 0 : p.split('/').length - 1;
}
