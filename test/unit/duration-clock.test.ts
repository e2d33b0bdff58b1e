// Durations are measured on one clock (electron/broker/core/clock.ts), the monotonic one: a change of
// the system time (a sync, a person setting the clock, a suspend) never makes a recorded duration
// negative or hours long. Fake timers move each clock on its own: setSystemTime moves only Date.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientDef } from '../../electron/broker/clients/catalogue.js';
import { wrapAudit } from '../../electron/broker/clients/wrap-apply.js';
import { elapsedMs, monotonicMs } from '../../electron/broker/core/clock.js';
import { yielder } from '../../electron/broker/core/yielder.js';
import { StartTimes } from '../../electron/broker/doctor/slow-start.js';

const HOUR = 3_600_000;

afterEach(() => vi.useRealTimers());

describe('the duration clock', () => {
  it('measures whole milliseconds, unmoved by a change of the system time', () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const start = monotonicMs();
    vi.setSystemTime(Date.now() - HOUR);
    vi.advanceTimersByTime(1234);
    expect(elapsedMs(start)).toBe(1234);
    vi.setSystemTime(Date.now() + 2 * HOUR);
    expect(elapsedMs(start)).toBe(1234);
  });

  it("a server's start time is measured on it", () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const took = new StartTimes().begin();
    vi.setSystemTime(Date.now() - HOUR);
    vi.advanceTimersByTime(12_000);
    expect(took()).toBe(12_000);
  });

  it("a wrap's audit entry records its duration on it, and its time on the wall clock", () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const started = monotonicMs();
    vi.advanceTimersByTime(40);
    vi.setSystemTime(new Date('2030-01-01T00:00:00.000Z'));
    const entry = wrapAudit('wrap', clientDef('cursor')!, started, {}, 'Wrapped Cursor');
    expect(entry.durationMs).toBe(40);
    expect(entry.time).toBe('2030-01-01T00:00:00.000Z');
  });
});

describe('the event-loop yielder', () => {
  it('returns nothing until its slice has run, then gives the loop a turn and starts a new slice', async () => {
    vi.useFakeTimers({ toFake: ['performance'] }); // setImmediate stays real
    const pause = yielder(10);
    expect(pause()).toBeUndefined();
    vi.advanceTimersByTime(9);
    expect(pause()).toBeUndefined();
    vi.advanceTimersByTime(1);
    let otherWorkRan = false;
    setImmediate(() => (otherWorkRan = true));
    const turn = pause();
    expect(turn).toBeInstanceOf(Promise);
    await turn;
    expect(otherWorkRan).toBe(true);
    expect(pause()).toBeUndefined(); // a fresh slice
  });

  it('is not moved by a change of the system time', () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const pause = yielder(10);
    vi.setSystemTime(Date.now() + HOUR);
    expect(pause()).toBeUndefined();
  });
});
