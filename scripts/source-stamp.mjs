// What dist/ was built from: the build records a digest of every source file it reads (dist/source-stamp.json),
// and the test runs recompute it, so a test never runs a bundle older than the code beside it.
// Content digests, not mtimes: a checkout, a stash or a touch changes mtimes without changing code.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Folders whose files the bundles are built from (tests inside them excepted). */
export const SOURCE_DIRS = ['electron', 'shared', 'renderer'];
/** Single files that change what the build writes. */
export const BUILD_FILES = [
  'scripts/build.mjs',
  'scripts/build-cli.mjs',
  'scripts/build-renderer.mjs',
  'scripts/build-electron.mjs',
  'vite.config.ts',
  'tsconfig.json',
];
export const STAMP = join('dist', 'source-stamp.json');

const isTest = (name) => /\.test\.tsx?$/.test(name);

function walk(root, dir, out) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const rel = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(root, rel, out);
    } else if (entry.isFile() && !isTest(entry.name)) out.push(rel);
  }
}

/** path (relative, '/'-separated) → sha256 of its bytes, for every file the build reads. */
export function sourceDigests(root) {
  const files = [];
  for (const dir of SOURCE_DIRS) walk(root, dir, files);
  for (const file of BUILD_FILES) files.push(file);
  const digests = {};
  for (const file of files.sort()) {
    let bytes;
    try {
      bytes = readFileSync(join(root, file));
    } catch {
      continue; // an optional build file that is absent
    }
    digests[relative(root, join(root, file)).split(sep).join('/')] = createHash('sha256').update(bytes).digest('hex');
  }
  return digests;
}

/** Removes the stamp: a build that fails half-way must not leave dist/ looking fresh. */
export function clearStamp(root) {
  rmSync(join(root, STAMP), { force: true });
}

export function writeStamp(root, digests) {
  writeFileSync(join(root, STAMP), `${JSON.stringify({ files: digests }, null, 1)}\n`);
}

/**
 * Compares the sources now with those dist/ was built from.
 * @returns {{ fresh: boolean, unbuilt: boolean, changed: string[], added: string[], removed: string[] }}
 */
export function distFreshness(root) {
  let built;
  try {
    built = JSON.parse(readFileSync(join(root, STAMP), 'utf8')).files;
  } catch {
    built = undefined;
  }
  if (!built || typeof built !== 'object') return { fresh: false, unbuilt: true, changed: [], added: [], removed: [] };
  const now = sourceDigests(root);
  const changed = Object.keys(now).filter((f) => f in built && built[f] !== now[f]);
  const added = Object.keys(now).filter((f) => !(f in built));
  const removed = Object.keys(built).filter((f) => !(f in now));
  return { fresh: !changed.length && !added.length && !removed.length, unbuilt: false, changed, added, removed };
}

/** One message a person can act on, naming what changed since the build. */
export function freshnessMessage(result) {
  if (result.unbuilt) return `dist/ has no build stamp (${STAMP}): it was never built, or its last build failed. Run \`npm run build\`.`;
  const list = (label, files) =>
    files.length ? [`  ${label}: ${files.slice(0, 5).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''}`] : [];
  return [
    'dist/ is older than its sources, so tests would run stale code. Run `npm run build`.',
    ...list('changed since the build', result.changed),
    ...list('new since the build', result.added),
    ...list('gone since the build', result.removed),
  ].join('\n');
}
