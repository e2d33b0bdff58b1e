// Compares what servers list against what the person approved. Friction-only changes apply at once;
// anything else is held for review, and a held tool's calls are refused.
import { createHash } from 'node:crypto';
import type { Actor } from '../../../shared/api.js';
import { canonicalJson, definitionRecord } from '../../../shared/canonical-json.js';
import { classifyChange } from '../../../shared/definition-change.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { TrustStore, ServerTrust } from './trust-store.js';

export type ToolState = 'approved' | 'held' | 'unrecorded';

export interface TrackerHooks {
  /** A change applied without review (friction only), or a review decision: for the audit log. */
  note(server: string, tool: string, what: string, details: Record<string, unknown>, actor: Actor): void;
  /** New held changes appeared for this server. */
  changesDetected(server: string): void;
}

// Definitions are kept as parsed objects per listing, so one hash per object is enough (hot path).
const hashes = new WeakMap<ToolDefinition, string>();

export function definitionHashSync(tool: ToolDefinition): string {
  let hash = hashes.get(tool);
  if (!hash) {
    hash = createHash('sha256')
      .update(canonicalJson(definitionRecord(tool)))
      .digest('hex');
    hashes.set(tool, hash);
  }
  return hash;
}

/** One fingerprint for a whole listing, independent of order. */
export function listingHash(tools: ToolDefinition[]): string {
  const parts = tools.map((t) => `${t.name}:${definitionHashSync(t)}`).sort();
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/** What a person reviews of a held change: the new definition's hash, or the removed one's. */
export function heldChangeHash(rec: ServerTrust, name: string): string | undefined {
  const held = rec.held[name];
  if (!held) return undefined;
  return held.hash ?? rec.tools[name]?.hash ?? createHash('sha256').update(`removed:${name}`).digest('hex');
}

function isRecorded(rec: ServerTrust): boolean {
  return Object.keys(rec.tools).length > 0;
}

export class DefinitionTracker {
  constructor(
    private readonly store: TrustStore,
    private readonly hooks: TrackerHooks,
  ) {}

  /** Whether a call to this tool, as the server now defines it, may proceed to a decision. */
  state(server: string, tool: ToolDefinition | undefined, name: string): ToolState {
    const rec = this.store.get(server);
    if (!isRecorded(rec)) return 'unrecorded';
    const recorded = rec.tools[name];
    if (!recorded || !tool) return recorded ? 'approved' : 'held';
    if (definitionHashSync(tool) === recorded.hash) return 'approved';
    const change = classifyChange(recorded.definition, tool);
    return change.kind === 'friction-only' || change.kind === 'none' ? 'approved' : 'held';
  }

  /** A complete listing from a session: apply friction-only changes, hold the rest, note removals. */
  onListing(server: string, tools: ToolDefinition[]): void {
    const rec = this.store.get(server);
    if (rec.recordNextListing) {
      this.recordAll(server, tools);
      return;
    }
    if (!isRecorded(rec)) return;
    const now = new Date().toISOString();
    const applied: Array<{ name: string; fields: string[] }> = [];
    let newHolds = false;
    let dirty = false;
    const next = structuredClone(rec);
    const listed = new Set<string>();
    for (const tool of tools) {
      listed.add(tool.name);
      const hash = definitionHashSync(tool);
      const recorded = next.tools[tool.name];
      const held = next.held[tool.name];
      if (recorded && recorded.hash === hash) {
        if (held) {
          delete next.held[tool.name]; // back to what was approved
          dirty = true;
        }
        continue;
      }
      const change = classifyChange(recorded?.definition, tool);
      if (recorded && (change.kind === 'friction-only' || change.kind === 'none')) {
        next.tools[tool.name] = { definition: tool, hash, approvedAt: recorded.approvedAt };
        if (held) delete next.held[tool.name];
        applied.push({ name: tool.name, fields: change.kind === 'friction-only' ? change.fields : [] });
        dirty = true;
        continue;
      }
      if (held?.hash === hash) continue; // already held in this exact form (maybe rejected)
      next.held[tool.name] = { kind: recorded ? 'changed' : 'added', definition: tool, hash, detectedAt: now };
      newHolds = true;
      dirty = true;
    }
    for (const name of Object.keys(next.tools)) {
      if (listed.has(name) || next.held[name]?.kind === 'removed') continue;
      next.held[name] = { kind: 'removed', detectedAt: now };
      newHolds = true;
      dirty = true;
    }
    if (dirty) this.store.update(server, (r) => Object.assign(r, next));
    for (const a of applied) {
      this.hooks.note(server, a.name, 'friction-only change applied without review', { fields: a.fields }, 'countersign');
    }
    if (newHolds) this.hooks.changesDetected(server);
  }

  /** Records the whole current state as approved (on trust, or a person's first approval). */
  recordAll(server: string, tools: ToolDefinition[] | undefined): void {
    this.store.update(server, (r) => {
      if (!tools || tools.length === 0) {
        r.recordNextListing = true;
        return;
      }
      const now = new Date().toISOString();
      r.tools = Object.fromEntries(tools.map((t) => [t.name, { definition: t, hash: definitionHashSync(t), approvedAt: now }]));
      r.held = {};
      delete r.recordNextListing;
    });
  }

  hasRecord(server: string): boolean {
    const rec = this.store.get(server);
    return isRecorded(rec) || rec.recordNextListing === true;
  }

  /** What a client is shown: a held tool keeps its approved definition; an unreviewed new tool is not shown. */
  filterForClient(server: string, tools: ToolDefinition[]): ToolDefinition[] | undefined {
    const rec = this.store.get(server);
    if (!isRecorded(rec)) return undefined;
    let changed = false;
    const out: ToolDefinition[] = [];
    for (const tool of tools) {
      const state = this.state(server, tool, tool.name);
      if (state !== 'held') {
        out.push(tool);
        continue;
      }
      changed = true;
      const recorded = rec.tools[tool.name];
      if (recorded) out.push(recorded.definition);
    }
    return changed ? out : undefined;
  }

  /** Accepts or rejects held changes; returns the tools decided. */
  review(server: string, action: 'accept' | 'reject', only: string[] | undefined, actor: Actor): string[] {
    const rec = this.store.get(server);
    const names = Object.keys(rec.held).filter((n) => !only || only.includes(n));
    if (only) {
      const unknown = only.filter((n) => !Object.hasOwn(rec.held, n));
      if (unknown.length) throw new Error(`No change is waiting for review for: ${unknown.join(', ')}`);
    }
    if (names.length === 0) return [];
    const now = new Date().toISOString();
    this.store.update(server, (r) => {
      for (const name of names) {
        const held = r.held[name]!;
        if (action === 'accept') {
          if (held.kind === 'removed') delete r.tools[name];
          else r.tools[name] = { definition: held.definition!, hash: held.hash!, approvedAt: now };
          delete r.held[name];
        } else if (held.kind === 'removed') {
          delete r.held[name]; // nothing to block: the tool is gone; its record stays
        } else {
          held.rejected = true;
        }
      }
    });
    for (const name of names) {
      const held = rec.held[name]!;
      this.hooks.note(server, name, action === 'accept' ? 'change accepted' : 'change rejected', { kind: held.kind, hash: held.hash }, actor);
    }
    return names;
  }
}
