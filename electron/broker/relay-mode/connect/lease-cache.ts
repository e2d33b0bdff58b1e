// `connect`'s memory of which automatic allows it may repeat without asking the broker. A lease holds
// only while the tool listing it was decided on is current, until it expires, and until the broker
// revokes it; one given before the client read local data also ends once it has.
import type { DecidedBy } from '../../../../shared/decision.js';
import type { LeaseInfo } from '../../calls/gate-contract.js';
import type { LeaseGrant } from '../protocol.js';
import { monotonicMs } from '../../core/clock.js';

export interface Lease {
  generation: number;
  expires: number;
  untilLocalRead: boolean;
  decidedBy: DecidedBy;
  reasons: string[];
  retryOnTimeout: boolean;
  protect?: LeaseInfo['protect'];
  /** The key of the validator each call's arguments must pass (lease-check.ts); none: no schema. */
  schema?: string;
}

export class LeaseCache {
  private readonly leases = new Map<string, Lease>();
  private clientReadLocal = false;

  constructor(private readonly now: () => number = monotonicMs) {}

  grant(tool: string, generation: number, grant: LeaseGrant, retryOnTimeout: boolean): void {
    if (grant.untilLocalRead && this.clientReadLocal) return;
    this.leases.set(tool, {
      generation,
      expires: this.now() + grant.ttlMs,
      untilLocalRead: grant.untilLocalRead,
      decidedBy: grant.decidedBy,
      reasons: grant.reasons,
      retryOnTimeout,
      protect: grant.protect,
      schema: grant.schema?.key,
    });
  }

  /** The tool's lease, if it still holds for the tool listing of this generation. */
  find(tool: string, generation: number): Lease | undefined {
    const lease = this.leases.get(tool);
    if (!lease) return undefined;
    if (lease.generation !== generation || this.now() >= lease.expires || (lease.untilLocalRead && this.clientReadLocal)) {
      this.leases.delete(tool);
      return undefined;
    }
    return lease;
  }

  /** The broker revoked every lease, or (history) the client has now read local data. */
  revoke(history: boolean): void {
    if (!history) {
      this.leases.clear();
      return;
    }
    this.clientReadLocal = true;
    for (const [tool, lease] of this.leases) if (lease.untilLocalRead) this.leases.delete(tool);
  }

  get size(): number {
    return this.leases.size;
  }
}
