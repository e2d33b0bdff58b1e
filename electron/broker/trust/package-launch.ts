// Finds the package an npx / uvx / docker launch runs, and rewrites it to an exact version or digest.
import { basename } from 'node:path';
import type { ServerConfig } from '../../../shared/api.js';

export type PackageKind = 'npx' | 'uvx' | 'docker';

export interface PackageLaunch {
  kind: PackageKind;
  /** Index in args of the package argument. */
  index: number;
  name: string;
  /** Version, tag or digest as written; undefined when none. */
  version?: string;
  /** True when the launch already names an exact version or digest. */
  exact: boolean;
}

/** An exact npm version (no range, no tag). */
export const EXACT_SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
// Flags of each launcher that take a value, so the value is not mistaken for the package.
const NPX_VALUE_FLAGS = new Set(['-p', '--package', '-c', '--call', '--cache', '--registry', '--userconfig']);
const UVX_VALUE_FLAGS = new Set(['--from', '--with', '--python', '-p', '--index', '--index-url', '--extra-index-url', '--directory']);
const DOCKER_VALUE_FLAGS = new Set([
  '-e',
  '--env',
  '-v',
  '--volume',
  '--name',
  '-p',
  '--publish',
  '--network',
  '-u',
  '--user',
  '-w',
  '--workdir',
  '--env-file',
  '--mount',
  '--entrypoint',
  '--platform',
  '-l',
  '--label',
  '--memory',
  '-m',
  '--cpus',
  '--pull',
]);

function launcher(command: string): PackageKind | undefined {
  const base = basename(command)
    .toLowerCase()
    .replace(/\.(cmd|exe)$/, '');
  return base === 'npx' || base === 'uvx' || base === 'docker' ? base : undefined;
}

function firstPositional(args: string[], start: number, valueFlags: Set<string>): number {
  for (let i = start; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return i + 1 < args.length ? i + 1 : -1;
    if (a.startsWith('-')) {
      if (valueFlags.has(a)) i++;
      continue;
    }
    return i;
  }
  return -1;
}

function splitNpm(spec: string): { name: string; version?: string } {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at === -1 ? { name: spec } : { name: spec.slice(0, at), version: spec.slice(at + 1) };
}

export function findPackageLaunch(config: ServerConfig): PackageLaunch | undefined {
  if (!('command' in config)) return undefined;
  const kind = launcher(config.command);
  const args = config.args ?? [];
  if (kind === 'npx') {
    const pIndex = args.findIndex((a) => a === '-p' || a === '--package');
    const index = pIndex !== -1 && pIndex + 1 < args.length ? pIndex + 1 : firstPositional(args, 0, NPX_VALUE_FLAGS);
    if (index === -1) return undefined;
    const { name, version } = splitNpm(args[index]!);
    return { kind, index, name, version, exact: version !== undefined && EXACT_SEMVER.test(version) };
  }
  if (kind === 'uvx') {
    const fromIndex = args.indexOf('--from');
    const index = fromIndex !== -1 && fromIndex + 1 < args.length ? fromIndex + 1 : firstPositional(args, 0, UVX_VALUE_FLAGS);
    if (index === -1) return undefined;
    const m = /^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?(?:(==|@)(.+))?$/.exec(args[index]!);
    if (!m) return undefined;
    return { kind, index, name: m[1]!, version: m[3], exact: m[3] !== undefined && /^[0-9][0-9A-Za-z.+-]*$/.test(m[3]) };
  }
  if (kind === 'docker') {
    const run = args.indexOf('run');
    if (run === -1) return undefined;
    const index = firstPositional(args, run + 1, DOCKER_VALUE_FLAGS);
    if (index === -1) return undefined;
    const image = args[index]!;
    const digest = image.indexOf('@sha256:');
    if (digest !== -1) return { kind, index, name: image.slice(0, digest), version: image.slice(digest + 1), exact: true };
    return { kind, index, name: image, exact: false };
  }
  return undefined;
}

/** The exact spec for a resolved version or digest, in each launcher's own syntax. */
export function exactSpec(launch: PackageLaunch, resolved: string): string {
  if (launch.kind === 'npx') return `${launch.name}@${resolved}`;
  if (launch.kind === 'uvx') return `${launch.name}==${resolved}`;
  // docker: `resolved` is a digest (sha256:…); keep the tag for readability.
  return `${launch.name}@${resolved}`;
}

export function rewriteLaunch(
  config: Extract<ServerConfig, { command: string }>,
  launch: PackageLaunch,
  spec: string,
): Extract<ServerConfig, { command: string }> {
  const args = [...(config.args ?? [])];
  args[launch.index] = spec;
  return { ...config, args };
}
