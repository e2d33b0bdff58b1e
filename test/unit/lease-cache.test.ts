import { describe, expect, it } from 'vitest';
import { LeaseCache } from '../../electron/broker/relay-mode/connect/lease-cache.js';
import type { LeaseGrant } from '../../electron/broker/relay-mode/protocol.js';

const grant = (over: Partial<LeaseGrant> = {}): LeaseGrant => ({
  ttlMs: 200,
  untilLocalRead: false,
  decidedBy: 'policy',
  reasons: ['trusted-read-only'],
  ...over,
});

describe('LeaseCache', () => {
  it('holds a lease for the listing it was decided on, until it expires', () => {
    let now = 1000;
    const cache = new LeaseCache(() => now);
    cache.grant('read', 3, grant(), true);
    expect(cache.find('read', 3)).toMatchObject({ decidedBy: 'policy', retryOnTimeout: true, reasons: ['trusted-read-only'] });
    expect(cache.find('other', 3)).toBeUndefined();
    now += 199;
    expect(cache.find('read', 3)).toBeDefined();
    now += 1;
    expect(cache.find('read', 3)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops a lease once the tool listing changed', () => {
    const cache = new LeaseCache(() => 0);
    cache.grant('read', 3, grant(), false);
    expect(cache.find('read', 4)).toBeUndefined();
    // Gone for good: the old listing coming back does not revive it.
    expect(cache.find('read', 3)).toBeUndefined();
  });

  it('drops every lease when the broker revokes them', () => {
    const cache = new LeaseCache(() => 0);
    cache.grant('a', 1, grant(), false);
    cache.grant('b', 1, grant({ untilLocalRead: true }), false);
    cache.revoke(false);
    expect(cache.find('a', 1)).toBeUndefined();
    expect(cache.find('b', 1)).toBeUndefined();
  });

  it('ends leases given before a local read once the client has read local data, and gives no more such', () => {
    const cache = new LeaseCache(() => 0);
    cache.grant('send', 1, grant({ untilLocalRead: true, decidedBy: 'rule' }), false);
    cache.grant('read', 1, grant(), false);
    cache.revoke(true);
    expect(cache.find('send', 1)).toBeUndefined();
    expect(cache.find('read', 1)).toBeDefined();
    // A reply decided before the read may arrive after it: it must not leave a lease behind.
    cache.grant('send', 1, grant({ untilLocalRead: true, decidedBy: 'rule' }), false);
    expect(cache.find('send', 1)).toBeUndefined();
    cache.grant('send', 1, grant({ decidedBy: 'rule' }), false);
    expect(cache.find('send', 1)).toMatchObject({ decidedBy: 'rule' });
  });
});
