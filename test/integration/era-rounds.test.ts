// Multi round-trip calls (2026-07-28) through Countersign, via `connect` and HTTP: the retry is recognised
// as the same call continuing (the card shows the input), a continuation after a one-time yes is asked
// again while one after "allow for session" is not, and the log says what happened in each round.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import type { AuditEntry, PendingCall } from '../../shared/api.js';
import type { TestBroker, Via } from '../helpers/broker-harness.js';
import { connectV2, v2Server } from '../helpers/v2-client.js';
import { serveForSuite } from '../helpers/served-suite.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe.each<Via>(['connect', 'http'])('multi round-trip calls via %s', (via) => {
  const notes = v2Server('1.0.0');
  let broker: TestBroker;
  const calls = () =>
    existsSync(notes.callsFile)
      ? readFileSync(notes.callsFile, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { tool: string; arguments: { name?: string }; inputResponses?: unknown })
      : [];
  serveForSuite({ notes: notes.config }, ['notes'], [notes.dir], (b) => (broker = b));
  const confirmYes = () => ({ action: 'accept' as const, content: { confirm: true } });

  it('asks again after a one-time yes, showing the input, and logs both rounds', async () => {
    const name = `once-${via}`;
    const client = await connectV2(broker, 'notes', via, { elicit: confirmYes });
    try {
      const call = client.callTool({ name: 'delete_note', arguments: { name } }, { timeout: 60_000 });
      const first = await broker.waitForPending((c) => c.tool === 'delete_note');
      expect(first.input).toBeUndefined();
      await broker.api('decide', first.id, { kind: 'allow-once' });

      const second = await broker.waitForPending((c: PendingCall) => c.tool === 'delete_note' && c.id !== first.id);
      expect(second.input).toEqual({
        round: 2,
        requested: [{ key: 'confirm', method: 'elicitation/create', mode: 'form', message: `Delete note ${name}?` }],
        supplied: { confirm: { action: 'accept', content: { confirm: true } } },
        earlier: 'person',
      });
      expect(second.arguments).toEqual({ name });
      await broker.api('decide', second.id, { kind: 'allow-once' });
      expect(textOf(await call)).toBe(`deleted ${name}`);

      const mine = calls().filter((c) => c.arguments.name === name);
      expect(mine.map((c) => c.inputResponses === undefined)).toEqual([true, false]);
      const log = await broker.logWhen({ tool: 'delete_note' }, (l) => l.filter((e) => (e.arguments as { name?: string }).name === name).length >= 2);
      const rounds = log.filter((e: AuditEntry) => (e.arguments as { name?: string }).name === name);
      expect(rounds.map((e) => [e.decision, e.decidedBy, e.status])).toEqual([
        ['allow', 'person', 'input-required'],
        ['allow', 'person', 'ok'],
      ]);
      expect(rounds[0]!.detail).toBe(`The server asked for input instead of running the tool: 'confirm' (elicitation/create: "Delete note ${name}?").`);
    } finally {
      await client.close();
    }
  });

  it('does not ask again after "allow for this session"', async () => {
    const name = `session-${via}`;
    const client = await connectV2(broker, 'notes', via, { elicit: confirmYes });
    try {
      const call = client.callTool({ name: 'delete_note', arguments: { name } }, { timeout: 60_000 });
      const first = await broker.waitForPending((c) => c.tool === 'delete_note');
      await broker.api('decide', first.id, { kind: 'allow-session' });
      expect(textOf(await call)).toBe(`deleted ${name}`);
      const log = await broker.logWhen({ tool: 'delete_note' }, (l) => l.filter((e) => (e.arguments as { name?: string }).name === name).length >= 2);
      expect(log.filter((e) => (e.arguments as { name?: string }).name === name).map((e) => [e.decidedBy, e.status])).toEqual([
        ['person', 'input-required'],
        ['session', 'ok'],
      ]);
    } finally {
      await client.close();
    }
  });
});
