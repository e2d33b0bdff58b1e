import { describe, expect, it } from 'vitest';
import type { ControlChannel } from '../../electron/broker/relay-mode/control-channel.js';
import type { Report } from '../../electron/broker/relay-mode/protocol.js';
import { MAX_REPORT_ITEMS, ReportQueue } from '../../electron/broker/relay-mode/report-queue.js';

// Only what ReportQueue uses of a channel: the batches it sends.
function recorder(): { channel: ControlChannel; sent: Report[][] } {
  const sent: Report[][] = [];
  const channel = { notify: (method: string, params: { items: Report[] }) => void (method === 'report' && sent.push(params.items)) };
  return { channel: channel as unknown as ControlChannel, sent };
}

const settled = (call: number): Report => ({ kind: 'settled', call, outcome: { status: 'ok' } });

describe('ReportQueue', () => {
  it('sends what ended within one window as one batch, in order', async () => {
    const { channel, sent } = recorder();
    const q = new ReportQueue(channel, 10);
    q.push(settled(1));
    q.push(settled(2));
    expect(sent).toEqual([]);
    await new Promise((r) => setTimeout(r, 30));
    expect(sent).toEqual([[settled(1), settled(2)]]);
    q.push(settled(3));
    q.flush();
    expect(sent).toEqual([[settled(1), settled(2)], [settled(3)]]);
    q.flush(); // nothing pending: nothing sent
    expect(sent).toHaveLength(2);
  });

  it('never lets a batch grow past its item bound, so its size stays bounded', () => {
    const { channel, sent } = recorder();
    const q = new ReportQueue(channel, 60_000);
    for (let i = 0; i < MAX_REPORT_ITEMS * 2 + 1; i++) q.push(settled(i));
    expect(sent.map((b) => b.length)).toEqual([MAX_REPORT_ITEMS, MAX_REPORT_ITEMS]);
    q.flush();
    expect(sent.at(-1)).toEqual([settled(MAX_REPORT_ITEMS * 2)]);
  });
});
