import { describe, expect, it, vi } from 'vitest';
import type { BrokerEvent, CountersignApi } from '../../../shared/api';
import { isUnsupported } from './api-error';
import { createHttpBridge } from './http-bridge';
import { pickBridge } from './pick-bridge';
import { createSseParser } from './sse';
import { takeTokenFromLocation } from './token';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

describe('http bridge', () => {
  it('posts positional args with the bearer token, dropping a trailing undefined', async () => {
    const fetch = vi.fn(async () => json(200, { ok: true, value: null }));
    const { api } = createHttpBridge({ token: 'tok', baseUrl: 'http://h', fetch });
    await expect(api.reviewChanges('fs', 'reject', undefined)).resolves.toBeUndefined();
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('http://h/api/rpc');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
    expect(JSON.parse(init.body as string)).toEqual({ method: 'reviewChanges', args: ['fs', 'reject'] });
  });

  it('rejects with the broker message, recognises an unknown method, and reports a bad token', async () => {
    const replies = [
      json(422, { ok: false, error: 'No server named "x".' }),
      json(400, { ok: false, error: 'unknown API method "pinServer"' }),
      json(401, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unauthorized' } }),
    ];
    const bridge = createHttpBridge({ token: 't', fetch: async () => replies.shift()! });
    await expect(bridge.api.setTrust('x', true, { launchHash: 'a'.repeat(64) })).rejects.toThrow('No server named "x".');
    const err = await bridge.api.pinServer('x', { launchHash: 'a'.repeat(64) }).catch((e: unknown) => e);
    expect(isUnsupported(err)).toBe(true);
    await expect(bridge.api.getStatus()).rejects.toThrow('Unauthorized');
    expect(bridge.connection.state()).toBe('unauthorized');
  });

  it('is not mistaken for a promise', async () => {
    const { api } = createHttpBridge({ token: 't', fetch: async () => json(200, { ok: true, value: 1 }) });
    expect((api as unknown as { then?: unknown }).then).toBeUndefined();
    await expect(Promise.resolve(api)).resolves.toBe(api);
  });

  it('reads events from the SSE stream in chunks, and stops when the last listener leaves', async () => {
    const enc = new TextEncoder();
    let aborted = false;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode(': connected\n\nevent: broker\ndata: {"type":"servers-chan'));
        c.enqueue(enc.encode('ged"}\n\n: keepalive\n\nevent: broker\ndata: {"type":"rules-changed"}\n\n'));
      },
    });
    const fetch = vi.fn(async (_url: string, init?: RequestInit) => {
      init?.signal?.addEventListener('abort', () => (aborted = true));
      return new Response(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
    });
    const bridge = createHttpBridge({ token: 't', fetch: fetch as typeof globalThis.fetch });
    const events: BrokerEvent[] = [];
    const states: string[] = [];
    bridge.connection.onChange((s) => states.push(s));
    const off = bridge.api.subscribe((e) => events.push(e));
    await vi.waitFor(() => expect(events).toEqual([{ type: 'servers-changed' }, { type: 'rules-changed' }]));
    expect(states).toContain('live');
    expect(fetch).toHaveBeenCalledTimes(1);
    off();
    expect(aborted).toBe(true);
  });

  it('reconnects when the stream ends, and reports the way back to live', async () => {
    let n = 0;
    const fetch = async () => {
      n++;
      const body = n === 1 ? ': connected\n\n' : ': connected\n\nevent: broker\ndata: {"type":"status-changed"}\n\n';
      // The first stream ends at once (a broker restart); the second stays open.
      const stream = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new TextEncoder().encode(body)), n === 1 ? c.close() : undefined) });
      return new Response(stream, { status: 200 });
    };
    const bridge = createHttpBridge({ token: 't', fetch });
    const states: string[] = [];
    bridge.connection.onChange((s) => states.push(s));
    const events: BrokerEvent[] = [];
    const off = bridge.api.subscribe((e) => events.push(e));
    await vi.waitFor(() => expect(events).toEqual([{ type: 'status-changed' }]), { timeout: 3000 });
    expect(states).toEqual(['live', 'reconnecting', 'live']);
    off();
  });

  it('parses multi-line data and CRLF line ends', () => {
    const got: string[] = [];
    const parse = createSseParser((d) => got.push(d));
    parse('data: a\r\ndata: b\r\n\r\n');
    expect(got).toEqual(['a\nb']);
  });
});

describe('token and bridge choice', () => {
  it('takes the token from the fragment and removes it from the visible URL', () => {
    const replaceState = vi.fn();
    const token = takeTokenFromLocation(
      { hash: '#token=abc_DEF-123', pathname: '/', search: '' } as Location,
      { state: null, replaceState } as unknown as History,
    );
    expect(token).toBe('abc_DEF-123');
    expect(replaceState).toHaveBeenCalledWith(null, '', '/');
  });

  it('uses the Electron preload API when present', () => {
    const preload = { subscribe: () => () => undefined } as unknown as CountersignApi;
    const picked = pickBridge({ countersign: preload } as unknown as Window);
    expect(picked.api).toBe(preload);
  });

  it('asks for the printed address when there is no token', () => {
    const win = { location: { hash: '', pathname: '/', search: '' }, history: { state: null, replaceState: vi.fn() } } as unknown as Window;
    expect(pickBridge(win)).toEqual({ problem: 'no-token' });
  });
});
