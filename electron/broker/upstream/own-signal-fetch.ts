// The SDK's HTTP client transport passes one AbortSignal to every fetch of a connection, and undici adds
// an abort listener to it per request that only goes away on abort or garbage collection: a long session
// with a remote server piles up thousands. Each request here gets its own signal, dependent on the
// connection's (so closing the connection still aborts it), and the connection's signal gains nothing.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export function ownSignalFetch(base: FetchLike = fetch): FetchLike {
  return (url, init) => {
    const shared = init?.signal;
    return base(url, shared ? { ...init, signal: AbortSignal.any([shared]) } : init);
  };
}
