// The warnings a person reads about one call: what is known and what is only claimed. Pure, so the
// queue card, the call detail and the Servers screen read the same facts the same way.
// Rulebook: an untrusted server's claims may add friction, never remove it. They are stated as
// claims ("the server says…; not verified"), never dressed up as facts or as alarms they do not raise.
import type { PendingCall } from './api.js';
import type { ReasonCode, Severity } from './decision.js';
import type { Finding } from './description-scan.js';
import { escapeControl } from './escape.js';
import { formatBytes, shortPath, utf8Length, writtenBytes, type TargetFact } from './call-targets.js';
import type { EffectiveHints } from './tool.js';

/**
 * enforced: a limit the sandbox enforces (no network, read-only files). countersign: Countersign's own
 * finding (a file on disk, a scan, what this agent read, a cautious default). claim: the server's word.
 */
export type WarningSource = 'enforced' | 'countersign' | 'claim';

export type WarningCode =
  | 'self-protection' | 'exfiltration' | 'deletes' | 'overwrites' | 'moves' | 'edits' | 'creates'
  | 'definition-changed' | 'unknown-tool' | 'changes-data' | 'no-annotations' | 'reaches-outside'
  | 'unverified-claims' | 'scan' | 'enforced' | 'policy' | 'untrusted';

export interface CallWarning {
  key: string;
  code: WarningCode;
  source: WarningSource;
  /** For a claim: whether the person trusts the server that makes it. */
  trustedClaim?: boolean;
  severity: Severity;
  /** Ordered by consequence: 0 is worst (Countersign itself), higher is milder. */
  rank: number;
  /** One plain sentence about this call. */
  title: string;
  /** A few words for the queue card. */
  short: string;
  detail?: string;
  excerpt?: string;
}

/** Limits the sandbox enforces for the server (filled from shared/limits once that lands). */
export interface EnforcedFacts {
  /** No network: enforced by the sandbox, so nothing leaves through this server. */
  noNetwork?: boolean;
  /** The server's files are mounted read-only: enforced, so it cannot change them. */
  readOnlyFiles?: boolean;
  /** What enforces them, for the sentence ("bubblewrap"). */
  by?: string;
}

/** What Countersign knows around a call, besides its decision: carried on the pending call. */
export interface CallFacts {
  /** What this agent read locally before, most recent last: paths where known, else "tool on server". */
  localReads?: string[];
  /** The files the call names, with what was found on disk. */
  targets?: TargetFact[];
  enforced?: EnforcedFacts;
}

export interface WarningInput {
  server: string;
  tool: string;
  trusted: boolean;
  hints: EffectiveHints;
  /** Codes from the decision (shared/decide). */
  reasons: readonly ReasonCode[];
  arguments: unknown;
  findings?: readonly Finding[];
  facts?: CallFacts;
}

/** At most this many stand before the preview; the rest are one click away. */
export const HEADLINE_COUNT = 3;

const SEVERITY_BY_RANK = (rank: number): Severity => (rank <= 2 ? 'danger' : rank <= 5 ? 'warning' : 'info');

const q = (s: string): string => escapeControl(s);

function list(items: string[], max = 2): string {
  const shown = items.slice(-max).map(q);
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(' and ');
}

/** Every warning for the call, worst consequence first. */
export function callWarnings(input: WarningInput): CallWarning[] {
  const { hints, trusted, facts = {} } = input;
  const server = q(input.server);
  const has = (code: ReasonCode) => input.reasons.includes(code);
  const out: CallWarning[] = [];
  const add = (w: Omit<CallWarning, 'severity' | 'key'> & { severity?: Severity; key?: string }) =>
    out.push({ ...w, key: w.key ?? w.code, severity: w.severity ?? SEVERITY_BY_RANK(w.rank) });
  const claim = { source: 'claim' as const, trustedClaim: trusted };
  const s = hints.supplied;
  const enforced = facts.enforced ?? {};

  // Self-protection: the call names Countersign's own files or a client's config.
  const protectedFindings = (input.findings ?? []).filter((f) => f.code === 'protected-path');
  if (has('protected-path') || protectedFindings.length) {
    add({
      code: 'self-protection', source: 'countersign', rank: 0,
      title: "Touches Countersign's own files or an AI client's config: it could turn off what protects you",
      short: 'Countersign’s files',
      detail: protectedFindings.map((f) => f.message).join(' ') || undefined,
      excerpt: protectedFindings[0]?.excerpt,
    });
  }

  // Exfiltration: only where data can leave (open world, claimed or by default) after local reads.
  if (has('exfiltration-risk')) {
    const size = formatBytes(utf8Length(safeJson(input.arguments)));
    const reads = facts.localReads?.length ? `reading ${list(facts.localReads)}` : 'reading local data';
    if (enforced.noNetwork) {
      add({
        code: 'enforced', key: 'enforced-network', source: 'enforced', rank: 7,
        title: `No network for ${server}: enforced${enforced.by ? ` by ${q(enforced.by)}` : ''}, so this call cannot send data out`,
        short: 'No network (enforced)',
      });
    } else if (s.openWorldHint && !hints.openWorldHint) {
      // An untrusted server says it stays local: the claim cannot lift the guard, but it is not an alarm.
      add({
        code: 'exfiltration', ...claim, rank: 4,
        title: `${server} says this tool stays on this machine; not verified, because you have not trusted it. If that is wrong, it could send ${size} out after this agent's ${reads}`,
        short: 'Could send data out',
      });
    } else {
      const why = s.openWorldHint ? `${server} says this tool reaches outside systems` : 'this tool does not say whether it reaches outside, so Countersign assumes it can';
      add({
        code: 'exfiltration', ...(s.openWorldHint ? claim : { source: 'countersign' as const }), rank: 1,
        title: `Sends ${size} to an open-world tool after ${reads}`,
        short: 'Data can leave',
        detail: `${why[0]!.toUpperCase()}${why.slice(1)}; this agent read local data earlier in its session.`,
      });
    }
  }

  // What the call does to files, from what Countersign found on disk.
  const written = writtenBytes(input.arguments);
  let fileWarned = false;
  for (const t of facts.targets ?? []) {
    const name = q(shortPath(t.path));
    const size = t.bytes !== undefined ? formatBytes(t.bytes) : undefined;
    const key = `file:${t.key}:${t.path}`;
    if (t.role === 'delete') {
      fileWarned = true;
      add({ key, code: 'deletes', source: 'countersign', rank: 2, short: 'Deletes a file',
        title: t.exists === false ? `Deletes ${name}, which does not exist now` : `Deletes ${name}${size ? ` (${size})` : ''}`, detail: q(t.path) });
    } else if (t.role === 'write') {
      fileWarned = true;
      const after = written !== undefined ? formatBytes(written) : undefined;
      if (t.exists) {
        add({ key, code: 'overwrites', source: 'countersign', rank: 2, short: 'Overwrites a file',
          title: `Overwrites ${name}${size && after ? ` (${size} → ${after})` : size ? ` (${size})` : ''}`, detail: q(t.path) });
      } else if (t.exists === false) {
        add({ key, code: 'creates', source: 'countersign', rank: 5, short: 'New file', title: `Creates ${name}${after ? ` (${after})` : ''}`, detail: q(t.path) });
      } else {
        add({ key, code: 'overwrites', source: 'countersign', rank: 3, short: 'Writes a file',
          title: `Writes ${name}${after ? ` (${after})` : ''}; Countersign could not tell whether it exists`, detail: t.unknown ? q(t.unknown) : q(t.path) });
      }
    } else if (t.role === 'edit') {
      fileWarned = true;
      add({ key, code: 'edits', source: 'countersign', rank: 3, short: 'Edits a file',
        title: `Edits ${name}${size ? ` (${size})` : ''} in place`, detail: q(t.path) });
    } else if (t.role === 'move-to') {
      fileWarned = true;
      add({ key, code: 'moves', source: 'countersign', rank: t.exists ? 2 : 3, short: t.exists ? 'Replaces a file' : 'Moves a file',
        title: t.exists ? `Moves a file onto ${name}, which exists${size ? ` (${size})` : ''}` : `Moves a file to ${name}`, detail: q(t.path) });
    }
  }

  if (has('held-for-review') || has('definition-changed')) {
    add({ code: 'definition-changed', source: 'countersign', rank: 3, short: 'Definition changed',
      title: "This tool's definition changed since you approved it" });
  }
  if (has('unknown-tool')) {
    add({ code: 'unknown-tool', source: 'countersign', rank: 3, short: 'Unknown tool', title: `${server} never listed this tool, so nothing is known about it` });
  }

  // What the tool claims, or the cautious default when it claims nothing.
  const annotated = s.readOnlyHint || s.destructiveHint || s.idempotentHint || s.openWorldHint;
  if (!annotated) {
    add({ code: 'no-annotations', source: 'countersign', rank: 4, short: 'No annotations',
      title: 'Says nothing about what it does: treated as able to change or delete data and reach outside this machine' });
  } else if (!hints.readOnlyHint) {
    if (!fileWarned) {
      const destructiveClaimed = s.destructiveHint && hints.destructiveHint;
      add({
        code: 'changes-data', ...(s.readOnlyHint || destructiveClaimed ? claim : { source: 'countersign' as const }), rank: hints.destructiveHint ? 4 : 5,
        short: hints.destructiveHint ? 'Changes data' : 'Adds data',
        title: hints.destructiveHint
          ? (destructiveClaimed ? `${server} says this tool may change or delete data` : 'May change or delete data (it does not say it only adds)')
          : trusted ? `${server} says this tool only adds, never deletes` : `${server} says this tool only adds; not verified, because you have not trusted it`,
      });
    }
  }
  // With the network enforced off the hints say closed world whatever the server claimed: the fact speaks.
  const claimsLocal = s.openWorldHint && !hints.openWorldHint && !enforced.noNetwork;
  const untrustedReader = !trusted && hints.readOnlyHint;
  if (untrustedReader) {
    const local = claimsLocal && !has('exfiltration-risk') ? ' and stays on this machine' : '';
    add({ code: 'unverified-claims', ...claim, rank: 5, short: 'Says it only reads',
      title: `${server} says this only reads${local}; not verified, because you have not trusted it` });
  }
  if (!has('exfiltration-risk') && !enforced.noNetwork && (hints.openWorldHint || !trusted) && !(untrustedReader && claimsLocal)) {
    if (!s.openWorldHint) {
      if (annotated) add({ code: 'reaches-outside', source: 'countersign', rank: 5, short: 'May reach outside',
        title: 'Does not say whether it reaches outside this machine, so Countersign assumes it can' });
    } else if (hints.openWorldHint) {
      add({ code: 'reaches-outside', ...claim, rank: 5, short: 'Reaches outside', title: `${server} says this tool reaches outside systems: what it sends can leave this machine` });
    } else {
      add({ code: 'unverified-claims', key: 'claim-local', ...claim, rank: 6, short: 'Says it stays local',
        title: `${server} says this tool stays on this machine; not verified, because you have not trusted it` });
    }
  }
  if (enforced.readOnlyFiles && !hints.readOnlyHint) {
    add({ code: 'enforced', key: 'enforced-files', source: 'enforced', rank: 7, short: 'Read-only files (enforced)',
      title: `${server}'s files are read-only: enforced${enforced.by ? ` by ${q(enforced.by)}` : ''}, whatever the tool says` });
  }
  if (enforced.noNetwork && !has('exfiltration-risk')) {
    add({ code: 'enforced', key: 'enforced-network', source: 'enforced', rank: 7, short: 'No network (enforced)',
      title: `No network for ${server}: enforced${enforced.by ? ` by ${q(enforced.by)}` : ''}` });
  }

  // Claims an enforced limit contradicts: the fact wins, the claim is worth a look.
  if (has('write-on-read-only')) add({ code: 'enforced', key: 'contradiction-files', source: 'enforced', rank: 6, short: 'Claim contradicts limits',
    title: `${server} says this tool writes, but its files are read-only (enforced): the write will fail` });
  if (has('open-world-without-network')) add({ code: 'enforced', key: 'contradiction-network', source: 'enforced', rank: 6, short: 'Claim contradicts limits',
    title: `${server} says this tool reaches outside, but its network is off (enforced): nothing can leave through it` });

  // Countersign's scans (description, arguments, names).
  (input.findings ?? []).forEach((f, i) => {
    if (f.code === 'protected-path') return;
    add({ key: `scan:${f.code}:${i}`, code: 'scan', source: 'countersign', rank: f.severity === 'danger' ? 2 : f.severity === 'warning' ? 4 : 7,
      severity: f.severity, short: FINDING_SHORT[f.code] ?? 'Scan finding', title: escapeControl(f.message), excerpt: f.excerpt ? escapeControl(f.excerpt, { keepNewlines: true }) : undefined });
  });

  if (has('policy-always-ask')) add({ code: 'policy', source: 'countersign', rank: 8, short: 'Team policy', title: 'Your team policy says this tool always needs your approval' });
  if (has('user-rule-ignored-untrusted')) add({ code: 'policy', key: 'rule-ignored', source: 'countersign', rank: 8, short: 'Rule ignored', title: `Your saved rule for this tool applies only while ${server} is trusted` });
  if (!trusted) add({ code: 'untrusted', source: 'countersign', rank: 8, short: 'Untrusted server', title: `Every call to ${server} asks: you have not trusted it` });

  return out.map((w, i) => [w, i] as const).sort((a, b) => a[0].rank - b[0].rank || a[1] - b[1]).map(([w]) => w);
}

/** Short labels for findings that are not about text (the rest are 'Scan finding'). */
const FINDING_SHORT: Partial<Record<Finding['code'], string>> = {
  'schema-violation': "Breaks the tool's schema",
  'schema-invalid': 'Unusable schema',
  'undeclared-argument': 'Undeclared argument',
  'confusable-name': 'Look-alike name',
  'name-format': 'Odd name',
  'server-identity': 'Claims another identity',
};

/** The warnings that stand before the preview, and the rest (one click away). */
export function splitHeadline(warnings: readonly CallWarning[], count = HEADLINE_COUNT): { headline: CallWarning[]; more: CallWarning[] } {
  const notable = warnings.filter((w) => w.severity !== 'info');
  const headline = notable.slice(0, count);
  return { headline, more: warnings.filter((w) => !headline.includes(w)) };
}

/** A pending call's warnings: what the queue card, the detail and the client's inline form all show. */
export function pendingCallWarnings(call: Pick<PendingCall, 'server' | 'serverTrusted' | 'tool' | 'hints' | 'reasons' | 'arguments' | 'findings' | 'facts'>): CallWarning[] {
  return callWarnings({
    server: call.server,
    tool: call.tool,
    trusted: call.serverTrusted,
    hints: call.hints,
    reasons: (call.reasons ?? []).map((r) => r.code),
    arguments: call.arguments,
    findings: call.findings ?? [],
    facts: call.facts,
  });
}

/** Words for a warning's source, as the card and the detail show them. */
export function sourceLabel(w: Pick<CallWarning, 'source' | 'trustedClaim'>): string {
  if (w.source === 'enforced') return 'Enforced';
  if (w.source === 'countersign') return 'Countersign found';
  return w.trustedClaim ? 'Server says (trusted)' : 'Server says (not verified)';
}

export type HintName = keyof EffectiveHints['supplied'];

export interface HintStanding {
  /** The value Countersign acts on for warnings and prompts. */
  value: boolean;
  /** claim: the server's word, used; default: missing, cautious default; ignored: an untrusted claim that would remove caution. */
  basis: 'claim' | 'default' | 'ignored';
}

// The cautious value of each hint: what a missing or untrusted claim falls back to.
const CAUTIOUS: Record<HintName, boolean> = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/**
 * How Countersign reads one hint of a tool, for the Servers screen: the same reading the queue uses.
 * An untrusted server's claim counts only where it adds caution.
 */
export function hintStanding(hints: EffectiveHints, name: HintName, trusted: boolean): HintStanding {
  if (!hints.supplied[name]) return { value: CAUTIOUS[name], basis: 'default' };
  const claimed = hints[name];
  if (trusted || claimed === CAUTIOUS[name]) return { value: claimed, basis: 'claim' };
  return { value: CAUTIOUS[name], basis: 'ignored' };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
