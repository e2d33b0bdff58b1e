// Fails on any import cycle among the sources (electron/, shared/, renderer/src/), type-only imports
// included: a cycle of types still ties two modules' designs together (issue 22). dpdm parses every
// .ts/.tsx file given, with its TypeScript imports as written (no transform, so `import type` counts).
// Every source file must be parsed and every relative import resolved, or the check cannot vouch for it.
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCircular, parseDependencyTree } from 'dpdm';

export const SOURCE_DIRS = ['electron', 'shared', 'renderer/src'];

export interface CycleReport {
  files: number;
  /** Each cycle as the files on it, relative to the root. */
  cycles: string[][];
  /** Relative imports no file was found for ("issuer -> request"). */
  unresolved: string[];
  /** Source files the parser did not read. */
  unparsed: string[];
}

function sources(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

export async function importCycles(root: string, dirs: string[] = SOURCE_DIRS): Promise<CycleReport> {
  const files = dirs.flatMap((d) => sources(root, d));
  const tree = await parseDependencyTree(files, {
    cwd: root,
    context: root,
    transform: false,
    skipDynamicImports: false,
    tsconfig: undefined,
    onProgress: () => {},
  });
  const rel = (id: string) => relative(root, resolve(root, id));
  const parsed = new Set(
    Object.entries(tree)
      .filter(([, deps]) => deps)
      .map(([id]) => rel(id)),
  );
  const unresolved = Object.values(tree).flatMap((deps) =>
    (deps ?? []).filter((d) => d.id === null && d.request.startsWith('.')).map((d) => `${rel(d.issuer)} -> ${d.request}`),
  );
  return {
    files: files.length,
    cycles: parseCircular(tree).map((c) => c.map(rel)),
    unresolved,
    unparsed: files.filter((f) => !parsed.has(f)),
  };
}

async function main(): Promise<void> {
  const root = resolve(process.argv[2] ?? '.');
  const dirs = process.argv.length > 3 ? process.argv.slice(3) : SOURCE_DIRS;
  const r = await importCycles(root, dirs);
  for (const c of r.cycles) console.error(`cycle: ${[...c, c[0]].join(' -> ')}`);
  for (const u of r.unresolved) console.error(`unresolved import: ${u}`);
  for (const f of r.unparsed) console.error(`not parsed: ${f}`);
  if (r.cycles.length || r.unresolved.length || r.unparsed.length) {
    console.error(
      `check:cycles failed: ${r.cycles.length} import cycle(s) in ${r.files} files (type-only imports count). Move what both sides need into a module of its own.`,
    );
    process.exit(1);
  }
  console.log(`check:cycles: no import cycles in ${r.files} files (${dirs.join(', ')}).`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
