// The person's allow rules: saved ones (in the settings store, with everything it protects) and ones
// that last a client session (in memory only, gone with the session). Every change is audited.
import { randomUUID } from 'node:crypto';
import type { Actor, RulePatch } from '../../../shared/api.js';
import type { Rule } from '../../../shared/decision.js';
import { isLooserRule, ruleText } from '../../../shared/rules.js';
import type { Change } from '../audit/change-entry.js';
import type { RuleExtra, SettingsStore } from '../store/settings-store.js';

export interface RuleBookDeps {
  store: Pick<SettingsStore, 'listRules' | 'addRule' | 'removeRule' | 'updateRule'>;
  record(change: Change): void;
  changed(): void;
  /** Why such a rule may not be made (the managed policy's restrictions), else undefined. */
  refuse?(rule: { coversExfiltration?: boolean }): string | undefined;
}

export class RuleBook {
  private readonly sessionRules = new Map<string, Rule>();

  constructor(private readonly deps: RuleBookDeps) {}

  list(): Rule[] {
    return [...this.deps.store.listRules(), ...this.sessionRules.values()];
  }

  /** Saves a rule the person made on a call (`session` set: it lasts as long as that client session). */
  add(server: string, tool: string, extra: RuleExtra & { session?: string }, actor: Actor): Rule {
    const refused = this.deps.refuse?.(extra);
    if (refused) throw new Error(refused);
    let rule: Rule;
    if (extra.session !== undefined) {
      const { session, ...rest } = extra;
      rule = { id: randomUUID(), server, tool, action: 'allow', createdAt: new Date().toISOString(), session, ...definedOnly(rest) };
      this.sessionRules.set(rule.id, rule);
    } else {
      rule = this.deps.store.addRule(server, tool, extra);
    }
    this.deps.record({ kind: 'rule', actor, server, tool, what: `rule saved: allow ${ruleText(rule)}`, details: rule });
    this.deps.changed();
    return rule;
  }

  update(id: string, patch: RulePatch, actor: Actor): Rule {
    const before = this.find(id);
    const next: Rule = { ...before };
    if (patch.expiresAt !== undefined) {
      if (patch.expiresAt === null) delete next.expiresAt;
      else next.expiresAt = patch.expiresAt;
    }
    if (patch.coversExfiltration !== undefined) {
      if (patch.coversExfiltration) next.coversExfiltration = true;
      else delete next.coversExfiltration;
    }
    const refused = patch.coversExfiltration ? this.deps.refuse?.(next) : undefined;
    if (refused) throw new Error(refused);
    const saved =
      before.session !== undefined
        ? (this.sessionRules.set(id, next), next)
        : this.deps.store.updateRule(id, { expiresAt: next.expiresAt, coversExfiltration: next.coversExfiltration });
    const looser = isLooserRule(saved, before);
    this.deps.record({
      kind: 'rule',
      actor,
      server: saved.server,
      tool: saved.tool,
      what: `rule changed: allow ${ruleText(saved)}`,
      details: { from: before, to: saved },
      decision: looser ? 'allow' : 'deny',
    });
    this.deps.changed();
    return saved;
  }

  remove(id: string, actor: Actor): void {
    const rule = this.list().find((r) => r.id === id);
    if (rule?.session !== undefined) this.sessionRules.delete(id);
    else this.deps.store.removeRule(id);
    this.deps.record({ kind: 'rule', actor, server: rule?.server ?? '*', tool: rule?.tool, what: 'rule removed', details: rule, decision: 'deny' });
    this.deps.changed();
  }

  /** The client session ended: its rules end with it (nothing to audit: they were made to). */
  endSession(sessionId: string): void {
    let dropped = false;
    for (const [id, r] of this.sessionRules) if (r.session === sessionId) dropped = this.sessionRules.delete(id) || dropped;
    if (dropped) this.deps.changed();
  }

  find(id: string): Rule {
    const rule = this.list().find((r) => r.id === id);
    if (!rule) throw new Error(`No rule with id "${id}".`);
    return rule;
  }
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
