// connect's report times: the same text as toISOString, which it avoids for memory (iso-time.ts).
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../electron/broker/relay-mode/connect/iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes', () => {
    const samples = [
      0,
      1,
      9,
      10,
      99,
      100,
      999,
      Date.UTC(2026, 11, 3, 13, 5, 7, 45),
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(5, 0, 1),
      -1,
      Date.UTC(-1, 0, 1),
      Date.UTC(10000, 0, 1),
      8.64e15,
    ];
    for (let i = 0; i < 2000; i++) samples.push(Math.floor(Math.random() * 4e12) - 1e12);
    for (const ms of samples) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
