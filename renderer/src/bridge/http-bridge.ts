// CountersignApi over the broker's HTTP binding: POST /api/rpc for methods, GET /api/events (SSE, read
// with fetch because EventSource cannot send the Authorization header) for events.
import type { ApiMethod, BrokerEvent, CountersignApi } from '../../../shared/api';
import { ApiError } from './api-error';
import type { ConnectionSource, ConnectionState } from './connection';
import { createSseParser } from './sse';

export interface HttpBridgeOptions {
  token: string;
  /** Defaults to this page's origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
}

export interface HttpBridge {
  api: CountersignApi;
  connection: ConnectionSource;
}

const RETRY_MS = [500, 1000, 2000, 5000];

export function createHttpBridge(opts: HttpBridgeOptions): HttpBridge {
  const base = opts.baseUrl ?? '';
  const doFetch = opts.fetch ?? ((input, init) => fetch(input, init));
  const auth = { Authorization: `Bearer ${opts.token}` };
  const listeners = new Set<(e: BrokerEvent) => void>();
  const stateListeners = new Set<(s: ConnectionState) => void>();
  let state: ConnectionState = 'connecting';
  let stream: AbortController | undefined;

  const setState = (next: ConnectionState): void => {
    if (next === state) return;
    state = next;
    for (const l of stateListeners) l(next);
  };

  async function rpc(method: string, args: unknown[]): Promise<unknown> {
    // JSON turns a trailing undefined into null, which the strict tuple schemas refuse.
    const trimmed = [...args];
    while (trimmed.length && trimmed[trimmed.length - 1] === undefined) trimmed.pop();
    const res = await doFetch(`${base}/api/rpc`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ method, args: trimmed }),
    });
    if (res.status === 401) setState('unauthorized');
    let body: { ok?: boolean; value?: unknown; error?: unknown } | undefined;
    try {
      body = (await res.json()) as typeof body;
    } catch {
      body = undefined;
    }
    if (res.ok && body?.ok) return body.value ?? undefined;
    const error = body?.error;
    const message =
      typeof error === 'string'
        ? error
        : typeof (error as { message?: unknown })?.message === 'string'
          ? (error as { message: string }).message
          : `HTTP ${res.status}`;
    throw new ApiError(message, method, res.status);
  }

  function dispatch(data: string): void {
    let event: BrokerEvent;
    try {
      event = JSON.parse(data) as BrokerEvent;
    } catch {
      return;
    }
    for (const l of [...listeners]) {
      try {
        l(event);
      } catch (err) {
        console.error('countersign: event listener failed', err);
      }
    }
  }

  async function runStream(ctrl: AbortController): Promise<void> {
    let attempt = 0;
    while (!ctrl.signal.aborted) {
      try {
        const res = await doFetch(`${base}/api/events`, { headers: auth, signal: ctrl.signal });
        if (res.status === 401) {
          setState('unauthorized');
          return;
        }
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        setState('live');
        attempt = 0;
        const parse = createSseParser(dispatch);
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parse(decoder.decode(value, { stream: true }));
        }
      } catch {
        // Fall through to a retry: the broker restarted, or the network blinked.
      }
      if (ctrl.signal.aborted) return;
      setState('reconnecting');
      await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]));
    }
  }

  function subscribe(listener: (event: BrokerEvent) => void): () => void {
    listeners.add(listener);
    if (!stream) {
      stream = new AbortController();
      void runStream(stream);
    }
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && stream) {
        stream.abort();
        stream = undefined;
        setState('connecting');
      }
    };
  }

  // Every request method has the same shape, so one trap serves them all, including methods the broker
  // gains later. `then` must stay undefined or `await api` would treat the API as a promise.
  const api = new Proxy({ subscribe } as Partial<CountersignApi>, {
    get(target, prop) {
      if (prop === 'subscribe') return target.subscribe;
      if (typeof prop !== 'string' || prop === 'then' || prop === 'toJSON') return undefined;
      return (...args: unknown[]) => rpc(prop as ApiMethod, args);
    },
  }) as CountersignApi;

  const connection: ConnectionSource = {
    state: () => state,
    onChange(listener) {
      stateListeners.add(listener);
      return () => {
        stateListeners.delete(listener);
      };
    },
  };
  return { api, connection };
}
