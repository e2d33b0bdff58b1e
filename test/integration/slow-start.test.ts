// A server that takes more than 10 s to answer `initialize` gets a note on its Servers entry: how long,
// and what usually causes it. The fixture holds its answer until the test releases it (a FIFO), and the
// broker's clock is the test's, so the 10 s threshold is crossed by the test, never by waiting.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerView } from '../../shared/api.js';
import { approveShown } from '../helpers/consent.js';
import { startInProcess, type InProcess } from '../helpers/in-process.js';
import { NODE, ROOT } from '../helpers/paths.js';

const STARTUP = join(ROOT, 'test/fixtures/startup-server.mjs');
let world: InProcess;
let now = 1_700_000_000_000;

let scratch: string;

beforeEach(async () => {
  world = await startInProcess({ clock: () => now });
  scratch = mkdtempSync(join(tmpdir(), 'cs-slow-'));
});
afterEach(async () => {
  await world.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Starts a session to `name` and answers its initialize once `elapse` ms have passed on the broker's clock. */
async function startTaking(name: string, fifo: string, elapse: number): Promise<void> {
  const connecting = world.connect(name);
  // Opening the FIFO to write waits for its reader: the server, once it holds the initialize request.
  const writer = await open(fifo, 'w');
  now += elapse;
  await writer.write('go\n');
  await writer.close();
  await connecting;
}

const view = async (name: string): Promise<ServerView> => (await world.api.listServers()).find((s) => s.name === name)!;

describe('slow starts', () => {
  it('notes a start past 10 s with how long it took and the usual causes, and drops the note after a quick one', { timeout: 30_000 }, async () => {
    // Not in the data folder: every server's sandbox hides that.
    const fifo = join(scratch, 'release.fifo');
    execFileSync('mkfifo', [fifo]);
    await world.api.addServer('held', { command: NODE, args: [STARTUP, 'hold', fifo] });
    await approveShown(world.call, 'held');

    await startTaking('held', fifo, 10_000);
    expect((await view('held')).slowStart).toBeUndefined(); // 10 s is not past 10 s

    await startTaking('held', fifo, 12_500);
    const slow = (await view('held')).slowStart;
    expect(slow).toMatchObject({ ms: 12_500, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(slow!.causes.at(-1)).toBe('the server itself works before it answers (loading a model, indexing files)');
    expect(world.events.some((e) => e.type === 'servers-changed')).toBe(true);
    // doctor says the same, with the most likely cause as the fix.
    const report = await world.api.runDoctor();
    expect(report.findings.find((f) => f.code === 'server.slow-start')).toMatchObject({
      level: 'warning',
      subject: { server: 'held' },
      fix: slow!.causes[0],
      summary: `'held' took 13 s to answer at its last start (${slow!.at}); clients often give up after 60 s.`,
      detail: `What usually causes it: ${slow!.causes.join('; ')}.`,
    });

    await startTaking('held', fifo, 900);
    expect((await view('held')).slowStart).toBeUndefined();
    expect((await world.api.runDoctor()).findings.some((f) => f.code === 'server.slow-start')).toBe(false);
  });
});
