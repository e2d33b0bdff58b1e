// connect's crash safety on real sockets: the server's socket stays corked until every report byte is with
// the kernel, also when the broker reads slowly and the control socket backs up.
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportsBeforeCalls } from '../../electron/broker/relay-mode/connect/report-order.js';
import { unixSocketPair } from '../helpers/unix-socket-pair.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

/** A connected pair of Unix sockets; the broker's end starts paused (a broker that is behind). */
async function pair(): Promise<{ control: Socket; broker: Socket }> {
  const { client: control, accepted: broker, close } = await unixSocketPair({ pauseOnConnect: true });
  cleanup.push(close);
  return { control, broker };
}

function recorder(): { cork(): void; uncork(): void; corked: () => number } {
  let depth = 0;
  return { cork: () => void depth++, uncork: () => void depth--, corked: () => depth };
}

describe('reportsBeforeCalls', () => {
  it('releases the calls of a chunk at once when its reports went straight to the kernel', async () => {
    const { control } = await pair();
    const client = new PassThrough();
    const server = recorder();
    // The relay's own reader comes first, as in connect (its line transport starts before this).
    let corkedWhileHandled = -1;
    client.on('data', () => {
      // What the relay does while handling a chunk: report (corked), then forward (held).
      control.write('{"report":1}\n');
      corkedWhileHandled = server.corked();
    });
    reportsBeforeCalls(client, control, server);
    client.write('call\n');
    await new Promise((r) => setImmediate(r));
    expect(corkedWhileHandled).toBe(1);
    expect(server.corked()).toBe(0);
  });

  it('holds the calls while report bytes wait for a slow broker, and lets them go once they are written', async () => {
    const { control, broker } = await pair();
    const client = new PassThrough();
    const server = recorder();
    const big = Buffer.alloc(4 * 1024 * 1024, 'x');
    client.on('data', () => void control.write(big));
    reportsBeforeCalls(client, control, server);
    client.write('call\n');
    // The kernel took what fits; the rest waits in the socket, and so do the calls.
    await vi.waitFor(() => expect(server.corked()).toBe(1));
    expect(control.writableLength).toBeGreaterThan(0);
    expect(server.corked()).toBe(1);
    let received = 0;
    broker.on('data', (b: Buffer) => (received += b.length));
    broker.resume();
    await new Promise<void>((resolve) => {
      const check = (): void => (server.corked() === 0 ? resolve() : void setTimeout(check, 5));
      check();
    });
    expect(control.writableLength).toBe(0);
    expect(received).toBeLessThanOrEqual(big.length);
  });
});
