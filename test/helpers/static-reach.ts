// Every file and package an entry reaches through static imports (esbuild's metafile), for tests that
// keep a heavy module out of what a command loads at start.
import { build } from 'esbuild';
import { ROOT } from './paths.js';

/** Every file and package `entry` reaches through static imports, each with the chain that reaches it. */
export async function staticReach(entry: string): Promise<Map<string, string[]>> {
  const { metafile } = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    metafile: true,
    outdir: 'unused',
    splitting: true,
    logLevel: 'silent',
  });
  const chains = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  while (queue.length) {
    const from = queue.shift()!;
    for (const imp of metafile.inputs[from]?.imports ?? []) {
      if (imp.kind !== 'import-statement' || chains.has(imp.path)) continue;
      chains.set(imp.path, [...chains.get(from)!, imp.path]);
      queue.push(imp.path);
    }
  }
  return chains;
}
