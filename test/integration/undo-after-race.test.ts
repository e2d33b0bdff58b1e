// What the call left is recorded before the client hears the answer: a file changed right after it is a conflict.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { startInProcess } from '../helpers/in-process.js';

it('a file changed right after the answer is a conflict, not what the call left', async () => {
  const world = await startInProcess();
  const dir = mkdtempSync(join(tmpdir(), 'cs-race-'));
  try {
    await world.serve('files', (server) =>
      server.registerTool('write_file', { inputSchema: { path: z.string(), content: z.string() } }, async ({ path, content }) => {
        writeFileSync(path, content);
        return { content: [{ type: 'text' as const, text: 'ok' }] };
      }),
    );
    const file = join(dir, 'x');
    writeFileSync(file, 'before');
    const client = await world.connect('files');
    const call = client.callTool({ name: 'write_file', arguments: { path: file, content: 'agent' } });
    const p = await world.waitForPending();
    await world.api.decide(p.id, { kind: 'allow-once' });
    await call;
    writeFileSync(file, 'the person kept writing');
    const preview = await world.api.previewUndo({ server: 'files' });
    expect(preview.files[0]!.after?.text).toBe('agent');
    expect(preview.conflicts).toBe(1);
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
