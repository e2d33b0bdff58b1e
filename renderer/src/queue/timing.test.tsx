// @vitest-environment happy-dom
// Honest timing in the UI: the card says when the agent is likely to give up, a call the agent stopped
// waiting for says so instead of vanishing, and the Activity screen names what happened.
import { act, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/api';
import { FakeApi, makeCall } from '../test/fake-api';
import { renderApp } from '../test/render-app';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  seq: 1,
  time: new Date().toISOString(),
  server: 'fs',
  tool: 'write_file',
  arguments: {},
  decision: 'deny',
  decidedBy: 'person',
  reasons: [],
  durationMs: 0,
  status: 'denied',
  prev: '0',
  hash: 'abcdef0123456789',
  ...over,
});

describe('honest timing', () => {
  it('shows when a client without a progress token gives up, not the approval timeout', async () => {
    const api = new FakeApi();
    const now = Date.now();
    api.pending = [
      makeCall({ createdAt: now - 20_000, expiresAt: now + 100_000, clientWait: { basis: 'sdk-default', progress: false, givesUpAt: now + 40_000 } }),
    ];
    await renderApp(api);
    const card = screen.getByRole('option');
    expect(card.textContent).toMatch(/agent gives up in ~(3[5-9]|40) s/);
    expect(card.textContent).not.toMatch(/times out in/);
    const detail = screen.getByRole('region', { name: 'Call detail' });
    expect(detail.textContent).toMatch(/AgentLikely stops waiting at .* \(in (3[5-9]|40) s\): no progress token, and the MCP SDK default is 60 s\./);
  });

  it('says a client that asked for progress is kept waiting, and when one that does not restart its clock stops', async () => {
    const api = new FakeApi();
    const now = Date.now();
    api.pending = [makeCall({ createdAt: now, expiresAt: now + 120_000, clientWait: { basis: 'progress', progress: true, givesUpAt: now + 60_000 } })];
    await renderApp(api);
    expect(screen.getByRole('option').textContent).toMatch(/agent kept waiting · times out in (2 min 00 s|1 min 5\d s)/);
    expect(screen.getByRole('region', { name: 'Call detail' }).textContent).toMatch(
      /Kept informed by progress: waits until .* if it restarts its clock on progress, else stops at about/,
    );
  });

  it('a call the agent stopped waiting for says so, until dismissed', async () => {
    const api = new FakeApi();
    const call = makeCall({ tool: 'move_file', createdAt: Date.now() - 61_000 });
    api.pending = [call];
    await renderApp(api);
    act(() => api.emit({ type: 'pending-removed', id: call.id, why: 'agent-stopped' }));
    const list = await screen.findByRole('list', { name: 'Calls the agent stopped waiting for' });
    expect(list.textContent).toMatch(/The agent stopped waiting for move_file on fs after 1 min 0\d s\. It was not run\./);
    expect(screen.queryByRole('option')).toBeNull();
    act(() => within(list).getByRole('button', { name: 'Dismiss' }).click());
    expect(screen.queryByRole('list', { name: 'Calls the agent stopped waiting for' })).toBeNull();
  });

  it('a call that timed out or was decided leaves no such note', async () => {
    const api = new FakeApi();
    const call = makeCall();
    api.pending = [call];
    await renderApp(api);
    act(() => api.emit({ type: 'pending-removed', id: call.id, why: 'timeout' }));
    expect(screen.queryByRole('list', { name: 'Calls the agent stopped waiting for' })).toBeNull();
  });

  it('Activity labels say what happened', async () => {
    const api = new FakeApi();
    api.log = [
      entry({ seq: 1, kind: 'trust', actor: 'desktop', tool: '*', detail: 'server untrusted', decision: 'deny', status: 'ok' }),
      entry({ seq: 2, decidedBy: 'client', status: 'cancelled', detail: 'The agent stopped waiting after 60 s' }),
      entry({ seq: 3, kind: 'trust', actor: 'desktop', tool: '*', server: 'mem', detail: 'server trusted', decision: 'allow', status: 'ok' }),
      entry({ seq: 4, decidedBy: 'person', status: 'denied' }),
    ];
    await renderApp(api, 'activity');
    const rows = await screen.findAllByRole('button', { expanded: false });
    const text = rows.map((r) => r.textContent ?? '').filter((t) => /fs|mem/.test(t));
    expect(text.some((t) => /Untrusted\s*fs/.test(t))).toBe(true);
    expect(text.some((t) => /Trusted\s*mem/.test(t))).toBe(true);
    expect(text.some((t) => /Agent stopped waiting.*write_file.*by the agent/.test(t))).toBe(true);
    expect(text.some((t) => /Denied.*write_file.*by you/.test(t))).toBe(true);
    expect(text.some((t) => /Denied\s*·?\s*Trust/.test(t))).toBe(false);
  });
});
