// The one newline framer (wire/line-framer.ts), which LineTransport, the broker's report reader and
// `connect`'s refusal share: lines across chunks, blank lines, and a line over the limit.
import { describe, expect, it } from 'vitest';
import { LineFramer } from '../../electron/broker/wire/line-framer.js';

function framer(maxLineBytes: number): { push(s: string | Buffer): void; events: string[] } {
  const events: string[] = [];
  const f = new LineFramer({
    maxLineBytes,
    onLine: (line) => events.push(`line:${line.toString('utf8')}`),
    onOverflow: () => events.push('overflow'),
    onLongLine: (head) => events.push(`long:${head.length}:${head.slice(0, 3)}`),
  });
  return { push: (s) => f.push(typeof s === 'string' ? Buffer.from(s) : s), events };
}

describe('LineFramer', () => {
  it('cuts lines at newlines wherever the chunks end, a blank line included', () => {
    const f = framer(100);
    f.push('{"a":');
    expect(f.events).toEqual([]);
    f.push('1}\n\n{"b"');
    f.push(':2}\n{"c":3}');
    expect(f.events).toEqual(['line:{"a":1}', 'line:', 'line:{"b":2}']);
    f.push('\n');
    expect(f.events.at(-1)).toBe('line:{"c":3}');
  });

  it('passes a line of exactly the limit; one byte more is dropped, said at once and again at its end with its head', () => {
    const f = framer(10);
    f.push(`${'a'.repeat(10)}\n`);
    expect(f.events).toEqual([`line:${'a'.repeat(10)}`]);
    f.events.length = 0;
    f.push('b'.repeat(6));
    f.push('c'.repeat(5));
    expect(f.events).toEqual(['overflow']);
    f.push(`${'d'.repeat(5000)}\nok\n`);
    // The head holds the bytes already received, then some of the rest, never the whole line.
    expect(f.events).toEqual(['overflow', expect.stringMatching(/^long:\d+:bbb$/), 'line:ok']);
    const length = Number(f.events[1]!.split(':')[1]);
    expect(length).toBeGreaterThanOrEqual(11);
    expect(length).toBeLessThan(5011);
  });

  it('hands a line that came whole in one chunk as a view of that chunk (no copy)', () => {
    const lines: Buffer[] = [];
    const f = new LineFramer({ maxLineBytes: 100, onLine: (l) => lines.push(l) });
    const chunk = Buffer.alloc(8); // never from the shared pool a copy could also come from
    chunk.write('{"x":1}\n');
    f.push(chunk);
    expect(lines[0]!.buffer).toBe(chunk.buffer);
  });
});
