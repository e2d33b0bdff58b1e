// Launches refused for want of consent: one queue item per server and command however often a client
// retries, every refusal in the log (the first at once, repeats as one entry per window with their count).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Change } from '../../electron/broker/audit/change-entry.js';
import { LaunchRequests, REPEAT_WINDOW_MS } from '../../electron/broker/trust/launch-requests.js';
import type { LaunchView } from '../../shared/trust-types.js';

const view = (hash: string): LaunchView => ({ commandLine: ['node', 'server.js'], envNames: [], headerNames: [], hash, approved: false });

describe('LaunchRequests', () => {
  let log: Change[];
  let changed: number;
  let requests: LaunchRequests;
  beforeEach(() => {
    vi.useFakeTimers();
    log = [];
    changed = 0;
    requests = new LaunchRequests({ record: (c) => log.push(c), changed: () => changed++ });
  });
  afterEach(() => vi.useRealTimers());

  it('keeps one request per server and command, with every attempt counted', () => {
    for (let i = 0; i < 50; i++) requests.refused('notes', view('a'), 'its command line is new or changed', i % 2 ? 'claude' : 'cursor');
    requests.refused('notes', view('b'), 'its command line is new or changed', undefined);
    const listed = requests.list(() => true);
    expect(listed.map((r) => [r.server, r.launch.hash, r.attempts])).toEqual([
      ['notes', 'a', 50],
      ['notes', 'b', 1],
    ]);
    expect(listed[0]!.clients).toEqual(['cursor', 'claude']);
    expect(changed).toBe(2); // a new request, not each retry
  });

  it('logs the first refusal at once and the repeats of each window as one entry with their count', () => {
    requests.refused('notes', view('a'), 'its command line is new or changed', 'claude');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      kind: 'launch',
      actor: 'countersign',
      server: 'notes',
      decision: 'deny',
      what: 'launch refused: its command line is new or changed; it waits for your approval',
    });
    expect(log[0]!.details).toMatchObject({ commandLine: ['node', 'server.js'], hash: 'a', client: 'claude' });
    for (let i = 0; i < 99; i++) requests.refused('notes', view('a'), 'its command line is new or changed', 'claude');
    expect(log).toHaveLength(1);
    vi.advanceTimersByTime(REPEAT_WINDOW_MS);
    expect(log).toHaveLength(2);
    expect(log[1]!.what).toBe('launch refused 99 more times (a client retrying): its command line is new or changed');
    // A quiet window writes nothing, and ends the counting.
    vi.advanceTimersByTime(REPEAT_WINDOW_MS * 3);
    expect(log).toHaveLength(2);
    requests.refused('notes', view('a'), 'its command line is new or changed', 'claude');
    vi.advanceTimersByTime(REPEAT_WINDOW_MS);
    expect(log.map((c) => c.what).at(-1)).toBe('launch refused 1 more time (a client retrying): its command line is new or changed');
  });

  it('drops a request once it no longer waits (approved, changed, removed), writing what it counted', () => {
    requests.refused('notes', view('a'), 'why', undefined);
    requests.refused('notes', view('a'), 'why', undefined);
    expect(requests.list(() => false)).toEqual([]);
    expect(log.map((c) => c.what)).toEqual(['launch refused: why; it waits for your approval', 'launch refused 1 more time (a client retrying): why']);
    expect(changed).toBe(2);
    vi.advanceTimersByTime(REPEAT_WINDOW_MS * 2);
    expect(log).toHaveLength(2);
  });
});
