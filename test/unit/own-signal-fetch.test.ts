// Against a real local HTTP server: what a long session's requests leave on the connection's signal.
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownSignalFetch } from '../../electron/broker/upstream/own-signal-fetch.js';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hang') return; // never answers: only an abort ends the request
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('ownSignalFetch', () => {
  it('leaves no listener on the shared signal, however many requests use it', async () => {
    const shared = new AbortController();
    const wrapped = ownSignalFetch();
    for (let i = 0; i < 300; i++) expect(await (await wrapped(`${url}/n`, { signal: shared.signal })).text()).toBe('ok');
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    // Plain fetch, for comparison, leaves one per request until garbage collection.
    for (let i = 0; i < 20; i++) await (await fetch(`${url}/n`, { signal: shared.signal })).text();
    expect(getEventListeners(shared.signal, 'abort').length).toBeGreaterThan(0);
  });

  it('still aborts a request in flight when the shared signal is aborted', async () => {
    const shared = new AbortController();
    const arrived = new Promise((r) => server.once('request', r));
    const pending = ownSignalFetch()(`${url}/hang`, { signal: shared.signal });
    pending.catch(() => undefined); // asserted below, once aborted
    await arrived; // in flight: the server has it and will never answer
    shared.abort(new Error('connection closed'));
    await expect(pending).rejects.toThrow();
  });

  it('passes requests without a signal through unchanged', async () => {
    expect(await (await ownSignalFetch()(`${url}/n`)).text()).toBe('ok');
  });
});
