// A crash loses nothing: a real `countersign serve` is killed (SIGKILL) the moment HTTP clients have
// received some answers, with more calls in flight. Every call whose answer a client got, allowed or
// denied, is in the audit log on disk, and the log's chain is whole.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { MAX_ARGUMENT_DEPTH } from '../../electron/broker/checks/argument-checks.js';
import { AuditLog } from '../../electron/broker/audit/audit-log.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { EVERYTHING_SERVER, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ text?: string }>; isError?: boolean };

/** Arguments nested past what Countersign checks: refused (and logged) by policy, never run. */
function tooDeep(tag: string): Record<string, unknown> {
  let value: Record<string, unknown> = { tag };
  for (let i = 0; i <= MAX_ARGUMENT_DEPTH; i++) value = { inner: value };
  return { message: value };
}

function entriesOnDisk(dataDir: string): AuditEntry[] {
  return readFileSync(join(dataDir, 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEntry);
}

describe('HTTP audit entries survive a crash of the broker', () => {
  let broker: TestBroker | undefined;
  const dataDir = makeDataDir();
  afterAll(async () => {
    await broker?.stop();
    removeDir(dataDir);
  });

  it('every call whose answer a client received is on disk after kill -9, allowed or denied', async () => {
    configure(dataDir, { everything: { command: NODE, args: [EVERYTHING_SERVER] } }, ['everything']);
    broker = await startServe(dataDir);
    const clients: Client[] = [];
    for (let i = 0; i < 4; i++) clients.push(await connectClient(broker, 'everything', 'http'));
    for (const c of clients) await c.listTools();

    const child = broker.child;
    const answered: Array<{ tag: string; denied: boolean }> = [];
    const KILL_AFTER = 12;
    for (let i = 0; i < 60; i++) {
      const tag = `crash ${i}`;
      const denied = i % 5 === 4;
      const call = clients[i % clients.length]!.callTool({ name: 'echo', arguments: denied ? tooDeep(tag) : { message: tag } }) as Promise<ToolResult>;
      void call.then(
        (result) => {
          if (child.signalCode !== null || child.killed) return;
          expect(result.isError === true).toBe(denied);
          answered.push({ tag, denied });
          // At once, in the same tick the answer arrived in: nothing more is written after this.
          if (answered.length === KILL_AFTER) child.kill('SIGKILL');
        },
        () => undefined,
      );
    }
    // The calls still in flight are left to fail on their own (the SDK may retry a lost stream for a while).
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    expect(child.signalCode).toBe('SIGKILL');
    expect(answered.length).toBe(KILL_AFTER);
    expect(answered.some((a) => a.denied)).toBe(true);

    const entries = entriesOnDisk(dataDir).filter((e) => e.tool === 'echo');
    const tagOf = (e: AuditEntry): string => {
      const text = JSON.stringify(e.arguments);
      return /"message":"(crash \d+)"/.exec(text)?.[1] ?? '';
    };
    for (const { tag, denied } of answered) {
      if (denied) {
        // Its arguments are too deep to record: the denial is there, one per denied answer.
        continue;
      }
      const entry = entries.find((e) => tagOf(e) === tag);
      expect(entry, `the entry of '${tag}' is on disk`).toBeDefined();
      expect(entry).toMatchObject({ decision: 'allow', status: 'ok' });
    }
    const deniedOnDisk = entries.filter((e) => e.decision === 'deny' && e.reasons.includes('arguments-too-deep'));
    expect(deniedOnDisk.length).toBeGreaterThanOrEqual(answered.filter((a) => a.denied).length);
    expect(AuditLog.open(dataDir).log.verify()).toMatchObject({ ok: true, problems: [] });
  });
});
