// Both ends of a relay-mode control connection over a real Unix socket.
import { mkdtempSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LineTransport } from '../../electron/broker/wire/line-transport.js';
import { ControlChannel } from '../../electron/broker/relay-mode/control-channel.js';

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function pair(): Promise<[ControlChannel, ControlChannel]> {
  const path = join(mkdtempSync(join(tmpdir(), 'cs-ctl-')), 's');
  const accepted = new Promise<Socket>((resolve) => {
    server = createServer(resolve);
  });
  await new Promise<void>((resolve) => server!.listen(path, resolve));
  const a = connect(path);
  const b = await accepted;
  sockets.push(a, b);
  const channel = (s: Socket) => new ControlChannel(new LineTransport({ input: s, output: s, onCloseStreams: () => s.end() }));
  const [ca, cb] = [channel(a), channel(b)];
  await Promise.all([ca.start(), cb.start()]);
  return [ca, cb];
}

describe('ControlChannel', () => {
  it('carries requests both ways, and notifications', async () => {
    const [a, b] = await pair();
    b.handle('add', (p) => ({ sum: Number(p.x) + Number(p.y) }));
    a.handle('slow', async (p) => {
      await new Promise((r) => setTimeout(r, 20));
      return { echoed: p.v };
    });
    const heard: unknown[] = [];
    b.handle('note', (p) => void heard.push(p));
    a.notify('note', { n: 1 });
    const [sum, echoed] = await Promise.all([a.request('add', { x: 2, y: 3 }), b.request('slow', { v: 'hi' })]);
    expect(sum).toEqual({ sum: 5 });
    expect(echoed).toEqual({ echoed: 'hi' });
    expect(heard).toEqual([{ n: 1 }]);
  });

  it('answers an unknown method or a failing handler with an error, and keeps going', async () => {
    const [a, b] = await pair();
    b.handle('boom', () => {
      throw new Error('bad params');
    });
    b.handle('ok', () => ({ fine: true }));
    await expect(a.request('nope', {})).rejects.toThrow(/unknown control method nope/);
    await expect(a.request('boom', {})).rejects.toThrow('bad params');
    // A throwing notification handler is dropped quietly.
    a.notify('boom', {});
    expect(await a.request('ok', {})).toEqual({ fine: true });
  });

  it('gives up on a request after its timeout, and drops the late answer', async () => {
    const [a, b] = await pair();
    let release!: () => void;
    b.handle('late', () => new Promise((r) => (release = () => r({ late: true }))));
    b.handle('ok', () => ({ fine: true }));
    await expect(a.request('late', {}, 30)).rejects.toThrow('no answer to late within 30 ms');
    release();
    expect(await a.request('ok', {})).toEqual({ fine: true });
  });

  it('fails what is waiting, and says so, when the other end goes away', async () => {
    const [a, b] = await pair();
    b.handle('never', () => new Promise(() => undefined));
    let closed = false;
    a.onclose = () => (closed = true);
    const waiting = a.request('never', {});
    await new Promise((r) => setTimeout(r, 20));
    await b.close();
    await expect(waiting).rejects.toThrow(/control connection closed/);
    expect(closed).toBe(true);
    await expect(a.request('never', {})).rejects.toThrow(/closed/);
  });
});
