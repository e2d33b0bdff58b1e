// The lines a person reads about one call: what it does, what is known and what is only claimed. Pure,
// so the queue card, the call detail and the client's approval form read the same facts the same way,
// in the order card-order.ts defines once.
// Rulebook: an untrusted server's claims may add friction, never remove it. A claim that would remove
// caution is stated beside the cautious default ("Treated as able to change or delete data — it says it
// only reads, not checked"), never as the line itself; a trusted server's claims read as accepted.
import type { PendingCall } from './api.js';
import { byTier, type Ranked } from './card-order.js';
import { carriedBytes } from './carried-bytes.js';
import type { ReasonCode } from './decision.js';
import type { Finding } from './findings.js';
import { findingLabel } from './reasons.js';
import { escapeControl } from './escape.js';
import { formatBytes, shortPath, writtenBytes } from './call-targets.js';
import type { CallFacts } from './call-facts.js';
import type { EffectiveHints } from './tool.js';

/**
 * enforced: a limit the sandbox enforces (no network, read-only files). countersign: Countersign's own
 * finding (a file on disk, a scan, what this agent read). default: the cautious default, where nothing
 * checked says otherwise. claim: the server's word.
 */
export type WarningSource = 'enforced' | 'countersign' | 'default' | 'claim';

export type WarningCode =
  | 'self-protection'
  | 'exfiltration'
  | 'deletes'
  | 'overwrites'
  | 'moves'
  | 'edits'
  | 'creates'
  | 'reads'
  | 'adds'
  | 'impersonation'
  | 'definition-changed'
  | 'unknown-tool'
  | 'changes-data'
  | 'no-annotations'
  | 'reaches-outside'
  | 'repeat'
  | 'scan'
  | 'enforced'
  | 'policy'
  | 'untrusted';

/** A claim nothing checked, shown beside the cautious default it would have lifted. */
export interface UncheckedClaim {
  /** "It says it only reads — not checked, because you have not trusted fs". */
  text: string;
  /** For the card, unchecked first (a narrow card may cut the end): 'not checked: “only reads”'. */
  short: string;
}

export interface CallWarning extends Ranked {
  key: string;
  code: WarningCode;
  source: WarningSource;
  /** For a claim: whether the person trusts the server that makes it. */
  trustedClaim?: boolean;
  /** One plain sentence about this call. */
  title: string;
  /** A few words for the queue card. */
  short: string;
  /** The untrusted claim beside a cautious default. */
  claim?: UncheckedClaim;
  detail?: string;
  excerpt?: string;
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

const q = (s: string): string => escapeControl(s);

/** A server-supplied name, short enough for a chip. */
function clip(name: string, max = 24): string {
  const chars = Array.from(name);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : name;
}

function list(items: string[], max = 2): string {
  const shown = items.slice(-max).map(q);
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(' and ');
}

/** Every line about the call, in the shared order (card-order.ts): what it does first. */
export function callWarnings(input: WarningInput): CallWarning[] {
  const { hints, trusted, facts = {} } = input;
  const server = q(input.server);
  const has = (code: ReasonCode) => input.reasons.includes(code);
  const out: CallWarning[] = [];
  const add = (w: Omit<CallWarning, 'key'> & { key?: string }) => out.push({ ...w, key: w.key ?? w.code });
  const claimed = { source: 'claim' as const, trustedClaim: trusted };
  // An untrusted server's claim that would remove caution: stated beside the cautious default, never instead of it.
  const unchecked = (says: string, short: string): UncheckedClaim => ({
    text: `It says ${says} — not checked, because you have not trusted ${server}`,
    short: `not checked: “${short}”`,
  });
  const s = hints.supplied;
  const enforced = facts.enforced ?? {};
  const reads = facts.localReads?.length ? list(facts.localReads) : 'local data';
  const exfiltration = has('exfiltration-risk');
  // What could leave is only worded after local reads: no walk over large arguments otherwise.
  const carried = exfiltration ? formatBytes(carriedBytes(input.arguments)) : '';
  // Whether the server's claim of a closed world is set aside (untrusted): then data may leave after all.
  const claimsLocal = !trusted && s.openWorldHint && !hints.openWorldHint && !enforced.noNetwork;

  // Self-protection: the call names Countersign's own files or a client's config.
  const protectedFindings = (input.findings ?? []).filter((f) => f.code === 'protected-path');
  if (has('protected-path') || protectedFindings.length) {
    add({
      code: 'self-protection',
      source: 'countersign',
      tier: 'own-files',
      severity: 'danger',
      title: "Touches Countersign's own files or an AI client's config: it could turn off what protects you",
      short: 'Countersign’s files',
      detail: protectedFindings.map((f) => f.message).join(' ') || undefined,
      excerpt: protectedFindings[0]?.excerpt,
    });
  }

  // Data leaving: only through an open-world tool (claimed, or by default), after this agent read local data.
  if (exfiltration && enforced.noNetwork) {
    add({
      code: 'enforced',
      key: 'enforced-network',
      source: 'enforced',
      tier: 'enforced',
      severity: 'info',
      title: `No network for ${server}: enforced${enforced.by ? ` by ${q(enforced.by)}` : ''}, so this call cannot send data out`,
      short: 'No network (enforced)',
    });
  } else if (exfiltration && !claimsLocal) {
    const why = s.openWorldHint
      ? `${server} says this tool reaches outside systems`
      : 'This tool does not say whether it reaches outside, so Countersign assumes it can';
    add({
      code: 'exfiltration',
      ...(s.openWorldHint ? claimed : { source: 'default' as const }),
      tier: 'sends-out',
      severity: 'danger',
      title: `Sends ${carried} to an open-world tool after reading ${reads}`,
      short: `Data can leave (${carried})`,
      detail: `${why}; this agent read local data earlier in its session. ${carried} is what its arguments carry.`,
    });
  }

  // What the call does to files, from what Countersign found on disk.
  const written = writtenBytes(input.arguments);
  const after = written !== undefined ? formatBytes(written) : undefined;
  let fileWarned = false;
  for (const t of facts.targets ?? []) {
    const name = q(shortPath(t.path));
    const chipName = clip(name);
    const size = t.bytes !== undefined ? formatBytes(t.bytes) : undefined;
    const base = { key: `file:${t.key}:${t.path}`, source: 'countersign' as const, detail: q(t.path) };
    if (t.role === 'delete') {
      fileWarned = true;
      add({
        ...base,
        code: 'deletes',
        tier: 'destroys',
        severity: 'danger',
        short: `Deletes ${chipName}`,
        title: t.exists === false ? `Deletes ${name}, which does not exist now` : `Deletes ${name}${size ? ` (${size})` : ''}`,
      });
    } else if (t.role === 'write') {
      fileWarned = true;
      if (t.exists) {
        add({
          ...base,
          code: 'overwrites',
          tier: 'destroys',
          severity: 'danger',
          short: `Overwrites ${chipName}`,
          title: `Overwrites ${name}${size && after ? ` (${size} → ${after})` : size ? ` (${size})` : ''}`,
        });
      } else if (t.exists === false) {
        add({
          ...base,
          code: 'creates',
          tier: 'does',
          severity: 'info',
          short: `Creates ${chipName}${after ? ` (${after})` : ''}`,
          title: `Creates ${name}${after ? ` (${after})` : ''}`,
        });
      } else {
        add({
          ...base,
          code: 'overwrites',
          tier: 'does',
          severity: 'warning',
          short: `Writes ${chipName}${after ? ` (${after})` : ''}`,
          title: `Writes ${name}${after ? ` (${after})` : ''}; Countersign could not tell whether it exists`,
          detail: t.unknown ? q(t.unknown) : q(t.path),
        });
      }
    } else if (t.role === 'edit') {
      fileWarned = true;
      add({
        ...base,
        code: 'edits',
        tier: 'does',
        severity: 'warning',
        short: `Edits ${chipName}`,
        title: `Edits ${name}${size ? ` (${size})` : ''} in place`,
      });
    } else if (t.role === 'move-to') {
      fileWarned = true;
      add(
        t.exists
          ? {
              ...base,
              code: 'moves',
              tier: 'destroys',
              severity: 'danger',
              short: `Replaces ${chipName}`,
              title: `Moves a file onto ${name}, which exists${size ? ` (${size})` : ''}`,
            }
          : { ...base, code: 'moves', tier: 'does', severity: 'info', short: `Moves to ${chipName}`, title: `Moves a file to ${name}` },
      );
    }
  }

  // Who asks: a server that takes another's name (as the Servers screen shows it).
  (input.findings ?? []).forEach((f, i) => {
    if (f.code !== 'server-identity') return;
    add({
      key: `identity:${i}`,
      code: 'impersonation',
      source: 'countersign',
      tier: f.severity === 'danger' ? 'who-asks' : 'scan',
      severity: f.severity,
      short: f.severity === 'danger' ? `Calls itself '${clip(f.excerpt)}'` : 'Uses a well-known name',
      title: f.message,
    });
  });

  if (has('held-for-review') || has('definition-changed')) {
    add({
      code: 'definition-changed',
      source: 'countersign',
      tier: 'unknown',
      severity: 'warning',
      short: 'Definition changed',
      title: "This tool's definition changed since you approved it",
    });
  }
  if (has('unknown-tool')) {
    add({
      code: 'unknown-tool',
      source: 'countersign',
      tier: 'unknown',
      severity: 'warning',
      short: 'Unknown tool',
      title: `${server} never listed this tool, so nothing is known about it`,
    });
  }

  // What the tool changes: the server's claim where it adds caution or is trusted, else the cautious default.
  const annotated = s.readOnlyHint || s.destructiveHint || s.idempotentHint || s.openWorldHint;
  const mayChange = { code: 'changes-data' as const, tier: 'assumed' as const, severity: 'warning' as const, short: 'May change or delete data' };
  if (!annotated) {
    add({
      code: 'no-annotations',
      source: 'default',
      tier: 'assumed',
      severity: 'warning',
      short: 'No annotations',
      title: 'Says nothing about what it does: treated as able to change or delete data and reach outside this machine',
    });
  } else if (hints.readOnlyHint) {
    if (trusted)
      add({
        code: 'reads',
        ...claimed,
        tier: 'does',
        severity: 'info',
        short: 'Only reads',
        title: 'Only reads',
        detail: `${server} says this tool changes nothing, and you trust ${server}.`,
      });
    else add({ ...mayChange, source: 'default', title: 'Treated as able to change or delete data', claim: unchecked('it only reads', 'only reads') });
  } else if (!hints.destructiveHint) {
    if (!trusted)
      add({
        ...mayChange,
        source: 'default',
        title: 'Treated as able to change or delete data',
        claim: unchecked('it only adds, never deletes', 'never deletes'),
      });
    else if (!fileWarned)
      add({
        code: 'adds',
        ...claimed,
        tier: 'does',
        severity: 'info',
        short: 'Only adds',
        title: 'Adds data, never deletes',
        detail: `${server} says so, and you trust ${server}.`,
      });
  } else if (!fileWarned) {
    add(
      s.destructiveHint
        ? { ...mayChange, ...claimed, title: `May change or delete data: ${server} says so` }
        : { ...mayChange, source: 'default', title: 'May change or delete data (it does not say it only adds)' },
    );
  }

  // Whether it reaches outside, where no exfiltration line above said it: a note unless data was read.
  if (exfiltration && claimsLocal) {
    add({
      code: 'reaches-outside',
      source: 'default',
      tier: 'assumed',
      severity: 'warning',
      short: 'May reach outside',
      title: 'Treated as able to reach outside this machine',
      claim: unchecked('it stays on this machine', 'stays local'),
      detail: `This agent read ${reads} earlier: if the claim is wrong, the ${carried} this call carries could leave.`,
    });
  } else if (!exfiltration && !enforced.noNetwork && annotated) {
    const detail = 'This agent has read no local data yet, so none can leave through this call.';
    if (claimsLocal) {
      add({
        code: 'reaches-outside',
        source: 'default',
        tier: 'note',
        severity: 'info',
        short: 'May reach outside',
        title: 'Treated as able to reach outside this machine',
        claim: unchecked('it stays on this machine', 'stays local'),
        detail,
      });
    } else if (!s.openWorldHint) {
      add({
        code: 'reaches-outside',
        source: 'default',
        tier: 'note',
        severity: 'info',
        short: 'May reach outside',
        title: 'Does not say whether it reaches outside this machine, so it is treated as able to',
        detail,
      });
    } else if (hints.openWorldHint) {
      add({
        code: 'reaches-outside',
        ...claimed,
        tier: 'note',
        severity: 'info',
        short: 'Reaches outside',
        title: `${server} says this tool reaches outside systems: what it sends leaves this machine`,
        detail,
      });
    }
  }

  // Repeating it: only a trusted server's claim lets Countersign retry after a timeout.
  if (s.idempotentHint && hints.idempotentHint && !(trusted && hints.readOnlyHint)) {
    add(
      trusted
        ? {
            code: 'repeat',
            ...claimed,
            tier: 'note',
            severity: 'info',
            short: 'Safe to repeat',
            title: 'Safe to repeat: Countersign may retry it once after a timeout',
            detail: `${server} says repeating it has no further effect, and you trust ${server}.`,
          }
        : {
            code: 'repeat',
            source: 'default',
            tier: 'note',
            severity: 'info',
            short: 'Never retried',
            title: 'Never retried on its own after a timeout',
            claim: unchecked('repeating it has no further effect', 'safe to repeat'),
          },
    );
  }

  if (enforced.readOnlyFiles) {
    add({
      code: 'enforced',
      key: 'enforced-files',
      source: 'enforced',
      tier: 'enforced',
      severity: 'info',
      short: 'Read-only files (enforced)',
      title: `${server}'s files are read-only: enforced${enforced.by ? ` by ${q(enforced.by)}` : ''}, whatever the tool says`,
    });
  }
  if (enforced.noNetwork && !exfiltration) {
    add({
      code: 'enforced',
      key: 'enforced-network',
      source: 'enforced',
      tier: 'enforced',
      severity: 'info',
      short: 'No network (enforced)',
      title: `No network for ${server}: enforced${enforced.by ? ` by ${q(enforced.by)}` : ''}`,
    });
  }

  // Claims an enforced limit contradicts: the fact wins, the claim is worth a look.
  if (has('write-on-read-only'))
    add({
      code: 'enforced',
      key: 'contradiction-files',
      source: 'enforced',
      tier: 'scan',
      severity: 'warning',
      short: 'Claim contradicts limits',
      title: `${server} says this tool writes, but its files are read-only (enforced): the write will fail`,
    });
  if (has('open-world-without-network'))
    add({
      code: 'enforced',
      key: 'contradiction-network',
      source: 'enforced',
      tier: 'scan',
      severity: 'warning',
      short: 'Claim contradicts limits',
      title: `${server} says this tool reaches outside, but its network is off (enforced): nothing can leave through it`,
    });

  // Countersign's scans (description, arguments, names).
  (input.findings ?? []).forEach((f, i) => {
    if (f.code === 'protected-path' || f.code === 'server-identity') return;
    add({
      key: `scan:${f.code}:${i}`,
      code: 'scan',
      source: 'countersign',
      tier: f.severity === 'danger' ? 'who-asks' : f.severity === 'warning' ? 'scan' : 'note',
      severity: f.severity,
      short: findingLabel(f.code),
      title: escapeControl(f.message),
      excerpt: f.excerpt ? escapeControl(f.excerpt, { keepNewlines: true }) : undefined,
    });
  });

  if (has('policy-always-ask'))
    add({
      code: 'policy',
      source: 'countersign',
      tier: 'note',
      severity: 'info',
      short: 'Team policy',
      title: 'Your team policy says this tool always needs your approval',
    });
  if (has('user-rule-ignored-untrusted'))
    add({
      code: 'policy',
      key: 'rule-ignored',
      source: 'countersign',
      tier: 'note',
      severity: 'info',
      short: 'Rule ignored',
      title: `Your saved rule for this tool applies only while ${server} is trusted`,
    });
  if (!trusted)
    add({
      code: 'untrusted',
      source: 'countersign',
      tier: 'note',
      severity: 'info',
      short: 'Untrusted server',
      title: `Every call to ${server} asks: you have not trusted it`,
    });

  return byTier(out);
}

/** A pending call's warnings: what the queue card, the detail and the client's inline form all show. */
export function pendingCallWarnings(
  call: Pick<PendingCall, 'server' | 'serverTrusted' | 'tool' | 'hints' | 'reasons' | 'arguments' | 'findings' | 'facts'>,
): CallWarning[] {
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

/** Words for a line's source, as the card and the detail show them. */
export function sourceLabel(w: Pick<CallWarning, 'source' | 'trustedClaim'>): string {
  if (w.source === 'enforced') return 'Enforced';
  if (w.source === 'countersign') return 'Countersign found';
  if (w.source === 'default') return 'Cautious default';
  return w.trustedClaim ? 'Server says (you trust it)' : 'Server says (not checked)';
}

/** How a tool's server-supplied title is labelled: a trusted server's as its title, else as unchecked. */
export function suppliedTitleNote(trusted: boolean): string {
  return trusted ? 'server’s title' : 'server’s title, not checked';
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
