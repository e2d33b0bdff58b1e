// The broker's check of `connect`'s reports (relay mode): what fits comes back with only the fields the
// log uses; anything that does not fit is refused with an error naming the item, before any entry is made.
import { describe, expect, it } from 'vitest';
import { reportItems } from '../../electron/broker/relay-mode/wire-schemas.js';

const leased = {
  kind: 'leased',
  call: { call: 3, time: '2026-12-03T13:00:00.000Z', tool: 'echo', arguments: { message: 'hi' }, decidedBy: 'policy', reasons: ['trusted'] },
};

describe('reportItems', () => {
  it('takes leased and settled items, keeping only the known fields', () => {
    const items = reportItems({
      items: [
        { ...leased, extra: 1, call: { ...leased.call, sneaky: true } },
        { kind: 'settled', call: 3, outcome: { status: 'ok', junk: 'x' }, durationMs: 2 },
        { kind: 'settled', call: 4, outcome: { status: 'timeout', error: 'slow' } },
        { kind: 'settled', call: 5, outcome: { status: 'input-required', detail: 'asks for a name' } },
      ],
    });
    expect(items).toEqual([
      leased,
      { kind: 'settled', call: 3, outcome: { status: 'ok' }, durationMs: 2 },
      { kind: 'settled', call: 4, outcome: { status: 'timeout', error: 'slow' } },
      { kind: 'settled', call: 5, outcome: { status: 'input-required', detail: 'asks for a name' } },
    ]);
  });

  it.each([
    ['no items', {}],
    ['an unknown kind', { items: [{ kind: 'other', call: 1 }] }],
    ['a negative call number', { items: [{ kind: 'settled', call: -1, outcome: { status: 'ok' } }] }],
    ['a fractional call number', { items: [{ ...leased, call: { ...leased.call, call: 1.5 } }] }],
    ['an unknown outcome', { items: [{ kind: 'settled', call: 1, outcome: { status: 'great' } }] }],
    ['a failure without its error', { items: [{ kind: 'settled', call: 1, outcome: { status: 'failed' } }] }],
    ['a too long error', { items: [{ kind: 'settled', call: 1, outcome: { status: 'failed', error: 'x'.repeat(10_001) } }] }],
    ['a negative duration', { items: [{ kind: 'settled', call: 1, outcome: { status: 'ok' }, durationMs: -1 }] }],
    ['an unknown decidedBy', { items: [{ ...leased, call: { ...leased.call, decidedBy: 'agent' } }] }],
    ['a long time', { items: [{ ...leased, call: { ...leased.call, time: 'x'.repeat(65) } }] }],
    ['a tool that is not text', { items: [{ ...leased, call: { ...leased.call, tool: 7 } }] }],
    ['too many reasons', { items: [{ ...leased, call: { ...leased.call, reasons: Array(65).fill('r') } }] }],
    ['a long reason', { items: [{ ...leased, call: { ...leased.call, reasons: ['r'.repeat(129)] } }] }],
  ])('refuses %s', (_what, params) => {
    expect(() => reportItems(params as Record<string, unknown>)).toThrow(/^report: /);
  });
});
