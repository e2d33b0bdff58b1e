// What `countersign serve` loads at start: libraries only some requests need (client config parsers,
// the word diff, ajv, the SDK's HTTP client, the keyring's native module, which key-vault.ts loads only
// where a keyring may answer) must be imported on first use, not statically, since
// whatever is loaded stays in the broker's memory for as long as it runs (bench: idle).
import { describe, expect, it } from 'vitest';
import { staticReach } from '../helpers/static-reach.js';

const ON_DEMAND = ['diff', 'jsonc-parser', 'smol-toml', 'ajv', '@modelcontextprotocol/sdk', '@napi-rs/keyring'];

describe('countersign serve at start', () => {
  it('imports the libraries that only some requests need on first use', async () => {
    const reach = await staticReach('electron/cli/serve.ts');
    const loaded = [...reach.keys()].filter((p) => ON_DEMAND.some((lib) => p === lib || p.startsWith(`${lib}/`)));
    expect(loaded.map((p) => reach.get(p)!.join(' -> '))).toEqual([]);
    // The check sees packages at all: zod is loaded at start (settings), so it must show up.
    expect(reach.has('zod')).toBe(true);
  });
});
