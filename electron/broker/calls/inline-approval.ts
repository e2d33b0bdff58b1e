// Approval inside the client: a pending call can also be answered in the MCP client, with a form-mode
// elicitation, when the client declares the capability and the person turned this on for that client.
// Off by default, kept in memory only (no file the agent can write turns it on), and never offered for
// what needs Countersign's own screen: a diff beyond a few lines, self-protection, changed definitions,
// danger findings. The first answer wins, from either place (PendingQueue resolves once).
import type { Actor, DecisionRequest, PendingCall } from '../../../shared/api.js';
import { lineLabel, splitHeadline } from '../../../shared/card-order.js';
import { pendingCallWarnings, sourceLabel } from '../../../shared/call-warnings.js';
import { escapeControl } from '../../../shared/escape.js';
import type { ToolCallContext } from './gate-contract.js';
import { INLINE_SCHEMA } from './inline-schema.js';

/** The clients seen this run that can show a form, and those the person allowed to. */
export class InlineApprovalSettings {
  private readonly enabled = new Set<string>();
  private readonly seen = new Set<string>();

  /** `off`: why inline approval is turned off for every client (the managed policy), else undefined. */
  constructor(private readonly off: () => string | undefined = () => undefined) {}

  isOn(client: string | undefined): boolean {
    return client !== undefined && this.enabled.has(client) && this.off() === undefined;
  }

  set(client: string, on: boolean): boolean {
    const off = this.off();
    if (on && off) throw new Error(`${off}.`);
    const was = this.enabled.has(client);
    if (on) this.enabled.add(client);
    else this.enabled.delete(client);
    return was !== on;
  }

  /** A client announced elicitation support (by its name, as it gave it). */
  sawClient(name: string | undefined): void {
    if (name && this.seen.size < 500) this.seen.add(name);
  }

  list(): Array<{ client: string; enabled: boolean; seen: boolean }> {
    const names = new Set([...this.seen, ...this.enabled]);
    const off = this.off() !== undefined;
    return [...names].sort().map((client) => ({ client, enabled: !off && this.enabled.has(client), seen: this.seen.has(client) }));
  }
}

/** Lines of argument text beyond which a call is reviewed in Countersign, not inline. */
export const INLINE_MAX_LINES = 6;
const INLINE_MAX_CHARS = 600;

/** Why a call is not offered inline, or undefined when it may be. */
export function notInlineBecause(call: Pick<PendingCall, 'reasons' | 'findings' | 'arguments'>): string | undefined {
  const codes = new Set(call.reasons.map((r) => r.code));
  if (codes.has('protected-path') || call.findings.some((f) => f.code === 'protected-path')) return "it names Countersign's own files or a client's config";
  if (codes.has('held-for-review') || codes.has('definition-changed') || codes.has('quarantined')) return "the tool's definition changed";
  if (call.findings.some((f) => f.severity === 'danger')) return 'Countersign found something dangerous in it';
  let lines = 0;
  let chars = 0;
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string') {
      lines += v.split('\n').length;
      chars += v.length;
    } else if (v && typeof v === 'object' && depth < 16) {
      for (const x of Object.values(v)) walk(x, depth + 1);
    } else chars += String(v).length;
  };
  walk(call.arguments, 0);
  const strings = JSON.stringify(call.arguments ?? null).length;
  if (lines > INLINE_MAX_LINES + 2 || chars > INLINE_MAX_CHARS || strings > INLINE_MAX_CHARS * 2) return 'its preview is more than a few lines';
  return undefined;
}

type ShownCall = Parameters<typeof pendingCallWarnings>[0];

/**
 * The form's text: the call in a few lines, the same headline lines (at most three) the queue card
 * shows, in the same words, and where its full preview is.
 */
export function inlineMessage(call: ShownCall, previewUrl?: string): string {
  const args = JSON.stringify(call.arguments ?? {}, null, 1).replace(/\s*\n\s*/g, ' ');
  const { headline, moreNotable } = splitHeadline(pendingCallWarnings(call));
  return [
    `Approve ${escapeControl(call.tool)} on ${escapeControl(call.server)}?`,
    `Arguments: ${escapeControl(args.length > 400 ? `${args.slice(0, 400)}…` : args)}`,
    // The claim an untrusted server makes stays beside the cautious default, as on the card.
    ...headline.map((w) => `${lineLabel(w)}: ${w.title}${w.claim ? `. ${w.claim.text}` : ''} (${sourceLabel(w)})`),
    ...(moreNotable ? [`${moreNotable} more to check in Countersign.`] : []),
    previewUrl ? `Full preview: ${previewUrl}` : 'Full preview: in the Countersign app (Queue).',
  ].join('\n');
}

/** What the client's answer means; undefined leaves the call waiting in Countersign. */
export function inlineAnswer(result: unknown): { kind: 'allow-once' } | { kind: 'deny'; reason: string } | undefined {
  const r = result as { action?: unknown; content?: { decision?: unknown } } | undefined;
  if (r?.action === 'accept' && r.content?.decision === 'approve') return { kind: 'allow-once' };
  if (r?.action === 'accept' && r.content?.decision === 'deny') return { kind: 'deny', reason: 'denied in the client' };
  if (r?.action === 'decline') return { kind: 'deny', reason: 'declined in the client' };
  return undefined; // cancel, or anything else: Countersign keeps asking
}

export interface InlineOffer {
  ctx: Pick<ToolCallContext, 'clientElicits' | 'askClient' | 'sendProgress'>;
  call: PendingCall;
  /** Resolves once the call is no longer pending, however it ended. */
  settled: Promise<unknown>;
  settings: InlineApprovalSettings;
  decide(id: string, decision: DecisionRequest, actor: Actor): boolean;
  previewUrl?: string;
}

/**
 * Offers a pending call to the client as a form, when allowed. The answer goes through the queue like
 * any other (first answer wins); once the call is settled elsewhere the form is cancelled.
 */
export function offerInline(o: InlineOffer): void {
  const { ctx, call } = o;
  if (!ctx.clientElicits || !ctx.askClient || !o.settings.isOn(call.client.name)) return;
  const why = notInlineBecause(call);
  if (why) {
    ctx.sendProgress(0, `Review this call in Countersign: it is not offered here because ${why}.`);
    return;
  }
  const abort = new AbortController();
  void o.settled.then(() => abort.abort());
  const params = { mode: 'form', message: inlineMessage(call, o.previewUrl), requestedSchema: INLINE_SCHEMA };
  ctx.askClient('elicitation/create', params, abort.signal).then(
    (result) => {
      const answer = inlineAnswer(result);
      if (answer) o.decide(call.id, answer, 'client');
    },
    () => undefined, // cancelled, refused or the session ended: the call keeps waiting in Countersign
  );
}
