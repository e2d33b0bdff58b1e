// What deciding a call reads of trust, in one read (calls/gate-facts.ts): whether the tool may be
// decided at all, whether the team policy makes it always ask, and the server's MCP revision.
import type { ReasonCode } from '../../../shared/decision.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { TrustRecords } from './trust-records.js';

/** Why a call to this tool may not even be decided: blocked, quarantined or held for review. */
export interface CallBlock {
  code: Extract<ReasonCode, 'blocked-by-policy' | 'quarantined' | 'held-for-review'>;
  message: string;
}

export interface CallTrust {
  block?: CallBlock;
  /** The team policy says this tool always asks. */
  alwaysAsk: boolean;
  /** What the server said at its last initialize (the schema dialect follows it). */
  protocolVersion?: string;
  /** The catalogue entry that makes it trusted by the organization (a person's "do not trust" cancels it). */
  organization?: string;
}

export function callView(t: TrustRecords, server: string, tool: ToolDefinition | undefined, name: string): CallTrust {
  const block = callBlock(t, server, tool, name);
  if (block) return { block, alwaysAsk: false };
  const organization = t.catalogue.organizationTrust(server, t.opts.settings.getServer(server));
  return { alwaysAsk: t.alwaysAsk(server, name), protocolVersion: t.identities.get(server)?.protocolVersion, ...(organization ? { organization } : {}) };
}

export function callBlock(t: TrustRecords, server: string, tool: ToolDefinition | undefined, name: string): CallBlock | undefined {
  const blocked = t.blockReason(server, t.opts.settings.getServer(server));
  if (blocked) return { code: 'blocked-by-policy', message: `Countersign refused this call: ${blocked}.` };
  const quarantine = t.quarantined(server);
  if (quarantine.length) {
    return {
      code: 'quarantined',
      message: `Countersign refused this call: '${server}' is quarantined because ${quarantine.join('; ')}. Nothing runs until the person re-pins or unpins it in Countersign.`,
    };
  }
  if (t.tracker.state(server, tool, name) === 'held') {
    return {
      code: 'held-for-review',
      message: `Countersign refused this call: the definition of '${name}' changed (or is new) and waits for the person's review in Countersign. It was not run.`,
    };
  }
  return undefined;
}
