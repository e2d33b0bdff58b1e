// Which installed copy `npx -y pkg@1.2.3` would run, found the way npm's exec does: the launch folder's
// project (the nearest folder up with a package.json or node_modules) when it has that version, else
// npx's own cache folder for that exact spec (`<npm cache>/_npx/<sha512(spec)[0..16]>`).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface InstalledPackage {
  name: string;
  version: string;
  dir: string;
  /** `prepared`: installed by Countersign before a sandbox (sandbox/package-prep.ts). */
  source: 'launch-folder' | 'npx-cache' | 'prepared';
  /** The bin script npx would run, absolute; undefined when the package names none. */
  bin?: string;
}

export interface NpxLocations {
  /** The folder the server starts in. */
  cwd: string;
  /** npm's `_npx` folder. */
  npxCache: string;
}

export function npxCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache =
    env.npm_config_cache ||
    env.NPM_CONFIG_CACHE ||
    (process.platform === 'win32' ? path.join(env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local'), 'npm-cache') : path.join(os.homedir(), '.npm'));
  return path.join(cache, '_npx');
}

/** The project npm would use for a command started in `cwd`. */
export function npmPrefix(cwd: string): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) || existsSync(path.join(dir, 'node_modules'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(cwd);
  }
}

/** npx's cache folder for one package spec, as libnpmexec names it. */
export function npxSpecDir(npxCache: string, spec: string): string {
  return path.join(npxCache, createHash('sha512').update(spec).digest('hex').slice(0, 16));
}

/** The package in `nodeModules`, if it is there at `version`. */
export function readInstalled(nodeModules: string, name: string, version: string, source: InstalledPackage['source']): InstalledPackage | undefined {
  const dir = path.join(nodeModules, ...name.split('/'));
  let manifest: { name?: unknown; version?: unknown; bin?: unknown };
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    return undefined;
  }
  if (manifest.name !== name || manifest.version !== version) return undefined;
  return { name, version, dir, source, bin: binOf(dir, name, manifest.bin) };
}

/** The bin npx runs: the only one, or the one named like the package (without its scope). */
function binOf(dir: string, name: string, bin: unknown): string | undefined {
  if (typeof bin === 'string') return path.resolve(dir, bin);
  if (!bin || typeof bin !== 'object') return undefined;
  const entries = Object.entries(bin as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string');
  const own = entries.find(([k]) => k === name.split('/').pop()) ?? (entries.length === 1 ? entries[0] : undefined);
  return own ? path.resolve(dir, own[1]) : undefined;
}

/** The copy `npx <spec>` would run from `where`, or undefined when npx would download it first. */
export function findNpxPackage(name: string, version: string, spec: string, where: NpxLocations): InstalledPackage | undefined {
  return (
    readInstalled(path.join(npmPrefix(where.cwd), 'node_modules'), name, version, 'launch-folder') ??
    readInstalled(path.join(npxSpecDir(where.npxCache, spec), 'node_modules'), name, version, 'npx-cache')
  );
}

/** Every copy of this version in npx's cache (whichever spec installed it). */
export function npxCacheCopies(name: string, version: string, npxCache: string): InstalledPackage[] {
  let dirs: string[];
  try {
    dirs = readdirSync(npxCache);
  } catch {
    return [];
  }
  return dirs.flatMap((d) => readInstalled(path.join(npxCache, d, 'node_modules'), name, version, 'npx-cache') ?? []);
}
