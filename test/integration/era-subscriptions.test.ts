// 2026-07-28 subscriptions through Countersign: the acknowledgement and each notification carry the
// client's own listen id (Countersign rewrites request ids upstream, and must rewrite these back).
import { describe, expect, it } from 'vitest';
import type { ServerChanges } from '../../shared/api.js';
import type { TestBroker, Via } from '../helpers/broker-harness.js';
import { connectV2, v2Server } from '../helpers/v2-client.js';
import { serveForSuite } from '../helpers/served-suite.js';

describe.each<Via>(['connect', 'http'])('subscriptions/listen via %s', (via) => {
  const notes = v2Server('1.0.0');
  let broker: TestBroker;
  serveForSuite({ notes: notes.config }, ['notes'], [notes.dir], (b) => (broker = b));

  it("acknowledges the listen and delivers list_changed under the client's id", async () => {
    const client = await connectV2(broker, 'notes', via);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['delete_note', 'open_link', 'read_note']);
      const changed = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
      const subscription = await client.listen({ toolsListChanged: true }, { timeout: 10_000 });
      notes.addTool();
      await changed;
      // Countersign re-listed the tools (with the client's envelope) and holds the new one for review.
      const end = Date.now() + 5000;
      let held: string[] = [];
      while (Date.now() < end && !held.includes('extra')) {
        held = ((await broker.api<ServerChanges[]>('listChanges')).find((c) => c.server === 'notes')?.tools ?? []).map((t) => t.name);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(held).toEqual(['extra']);
      await subscription.close();
    } finally {
      await client.close();
    }
  });
});
