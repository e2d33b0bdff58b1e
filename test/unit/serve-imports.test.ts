// What `countersign serve` loads at start: libraries only some requests need (client config parsers,
// the word diff, ajv, the SDK's HTTP client, the keyring's native module, which key-vault.ts loads only
// where a keyring may answer) must be imported on first use, not statically, since
// whatever is loaded stays in the broker's memory for as long as it runs (bench: idle).
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

const ON_DEMAND = ['diff', 'jsonc-parser', 'smol-toml', 'ajv', '@modelcontextprotocol/sdk', '@napi-rs/keyring'];

/** Every file and package `entry` reaches through static imports, each with the chain that reaches it. */
async function staticReach(entry: string): Promise<Map<string, string[]>> {
  const { metafile } = await build({
    entryPoints: [entry], absWorkingDir: ROOT, bundle: true, platform: 'node', format: 'esm',
    packages: 'external', write: false, metafile: true, outdir: 'unused', splitting: true, logLevel: 'silent',
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

describe('countersign serve at start', () => {
  it('imports the libraries that only some requests need on first use', async () => {
    const reach = await staticReach('electron/cli/serve.ts');
    const loaded = [...reach.keys()].filter((p) => ON_DEMAND.some((lib) => p === lib || p.startsWith(`${lib}/`)));
    expect(loaded.map((p) => reach.get(p)!.join(' -> '))).toEqual([]);
    // The check sees packages at all: zod is loaded at start (settings), so it must show up.
    expect(reach.has('zod')).toBe(true);
  });
});
