// `connect` (dist/connect.mjs) starts once per MCP server per client, and must start light: proving it may
// use the socket is a file read, not an HMAC, so node:crypto (about 2 MB and a few ms) stays out of it.
import { describe, expect, it } from 'vitest';
import { staticReach } from '../helpers/static-reach.js';

describe('countersign connect at start', () => {
  it('does not load node:crypto, though it reads the socket secret', async () => {
    const reach = await staticReach('electron/cli/connect-main.ts');
    expect(reach.has('electron/broker/local/secret-file.ts')).toBe(true);
    expect(reach.get('node:crypto')?.join(' -> ')).toBeUndefined();
    // The check sees node's modules at all: node:net is loaded at start.
    expect(reach.has('node:net')).toBe(true);
  });
});
