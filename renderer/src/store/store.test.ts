import { describe, expect, it, vi } from 'vitest';
import { FakeApi, makeCall } from '../test/fake-api';
import { coalesce } from './coalesce';
import { insertPending, neighbourAfterRemoval } from './pending-order';
import { createAppStore } from './store';

describe('pending order', () => {
  it('inserts by creation time, after equal times, and ignores duplicates', () => {
    const a = makeCall({ createdAt: 1 });
    const b = makeCall({ createdAt: 3 });
    const c = makeCall({ createdAt: 2 });
    const d = makeCall({ createdAt: 2 });
    let list = insertPending([], b);
    list = insertPending(list, a);
    list = insertPending(list, c);
    list = insertPending(list, d);
    list = insertPending(list, c);
    expect(list.map((x) => x.id)).toEqual([a.id, c.id, d.id, b.id]);
    expect(neighbourAfterRemoval(list, d.id)).toBe(b.id);
    expect(neighbourAfterRemoval(list, b.id)).toBe(d.id);
  });
});

describe('coalesce', () => {
  it('runs a burst of refreshes as one more run', async () => {
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const refresh = coalesce(async () => {
      runs++;
      if (runs === 1) await gate;
    });
    const first = refresh();
    for (let i = 0; i < 10; i++) void refresh();
    release();
    await first;
    expect(runs).toBe(2);
  });
});

describe('store', () => {
  it('refetches servers on servers-changed, and marks methods an older broker lacks', async () => {
    const api = new FakeApi();
    api.unsupported.add('listChanges');
    const store = createAppStore(api);
    await store.getState().loadAll();
    expect(store.getState().unsupported.listChanges).toBe(true);
    expect(store.getState().notices).toEqual([]);
    api.servers[0]!.trusted = true;
    store.getState().applyEvent({ type: 'servers-changed' });
    await vi.waitFor(() => expect(store.getState().servers?.[0]?.trusted).toBe(true));
  });

  it('moves the selection to the next call when the selected one leaves', async () => {
    const api = new FakeApi();
    api.pending = [makeCall(), makeCall(), makeCall()];
    const store = createAppStore(api);
    await store.getState().loadAll();
    const [a, b] = api.pending;
    expect(store.getState().selectedId).toBe(a!.id);
    await store.getState().decide(a!.id, { kind: 'allow-once' });
    expect(store.getState().selectedId).toBe(b!.id);
    const again = await store.getState().decide(a!.id, { kind: 'allow-once' });
    expect(again).toEqual({ ok: false, error: 'not-pending' });
    expect(store.getState().notices.at(-1)?.text).toMatch(/no longer waiting/);
  });

  it('announces each new call once; a burst says the first three, then how many more, once a second', async () => {
    vi.useFakeTimers();
    try {
      const api = new FakeApi();
      const store = createAppStore(api);
      await store.getState().loadAll();
      const said = () => store.getState().announcements.map((a) => a.text);
      for (let i = 1; i <= 6; i++) store.getState().applyEvent({ type: 'pending-added', call: makeCall({ tool: `t${i}`, server: 'fs' }) });
      expect(said()).toEqual(['New call waiting: t1 on fs.', 'New call waiting: t2 on fs.', 'New call waiting: t3 on fs.']);
      vi.advanceTimersByTime(1_000);
      expect(said().at(-1)).toBe('3 more new calls waiting.');
      const t7 = makeCall({ tool: 't7', server: 'fs' });
      store.getState().applyEvent({ type: 'pending-added', call: t7 });
      expect(said().at(-1)).toBe('New call waiting: t7 on fs.');
      const count = said().length;
      // The same call again (a replayed event) is not a new call.
      store.getState().applyEvent({ type: 'pending-added', call: t7 });
      vi.advanceTimersByTime(1_000);
      expect(said()).toHaveLength(count);
      expect(store.getState().pending.filter((c) => c.id === t7.id)).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
