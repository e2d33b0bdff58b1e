// A denied call is logged like an allowed one: by group commit, with no synchronous write on the call
// path, and its entry is on disk before the client hears "denied" (in-process broker, real log file).
import fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { startInProcess, type InProcess } from '../helpers/in-process.js';

let world: InProcess | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await world?.close();
  world = undefined;
});

const onDisk = (dataDir: string): AuditEntry[] =>
  fs
    .readFileSync(join(dataDir, 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEntry);

describe('denied calls in the audit log', () => {
  it('writes a policy denial asynchronously, and before its answer', async () => {
    world = await startInProcess();
    const served = await world.serve(
      'everything',
      (s, calls) => {
        s.registerTool('echo', { inputSchema: {}, annotations: { readOnlyHint: true } }, () => {
          calls.list.push({ tool: 'echo', args: {} });
          return { content: [{ type: 'text', text: 'ran' }] };
        });
      },
      { trusted: true },
    );
    const client = await world.connect('everything');
    await world.api.setPaused(true);
    const dataDir = world.dataDir;
    const before = onDisk(dataDir).length;
    const writes = [vi.spyOn(fs, 'writeSync'), vi.spyOn(fs, 'appendFileSync')];
    let seenWhenAnswered: AuditEntry[] = [];
    const result = (await client.callTool({ name: 'echo', arguments: {} }).then((r) => {
      vi.restoreAllMocks();
      seenWhenAnswered = onDisk(dataDir);
      return r;
    })) as { isError?: boolean };
    for (const w of writes) expect(w).not.toHaveBeenCalled();
    expect(result.isError).toBe(true);
    const added = seenWhenAnswered.slice(before);
    expect(added.map((e) => [e.tool, e.decision, e.decidedBy, e.status])).toEqual([['echo', 'deny', 'policy', 'denied']]);
    expect(served.calls.list).toEqual([]); // a call that was not allowed never reaches the server
    expect(world.broker.audit.verify().ok).toBe(true);
  });
});
