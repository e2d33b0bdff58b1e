// Scoped, expiring rules: what the card offers from a call's arguments, whether a rule covers a call,
// and the plain words for one. Pure, so the broker decides and the UI describes with the same code.
// A path scope reads every path the call names, anywhere in its arguments (shared/path-like.ts): a call
// with one path outside the scope, or with more than can be read, is not covered.
import { canonicalJson } from './canonical-json.js';
import { namedPaths, type NamedPath } from './path-like.js';
import type { Rule, RuleScope } from './decision.js';
import { escapeControl } from './escape.js';

/** How long a rule lasts. "This call only" is a plain approval, not a rule. */
export type RuleLifetime = { kind: 'minutes'; minutes: number } | { kind: 'session' } | { kind: 'always' };

/** What the person picks on the card; the broker builds the scope from the pending call's own arguments. */
export type ScopeChoice = { kind: 'tool' } | { kind: 'under'; dir: string } | { kind: 'same-target' } | { kind: 'exact' };

export interface RuleRequest {
  scope: ScopeChoice;
  lifetime: RuleLifetime;
  /** Also covers calls the exfiltration guard asks about (after this agent read local data). */
  coversExfiltration?: boolean;
}

/** What the decision knows when it checks a rule against a call. */
export interface RuleCheck {
  arguments: unknown;
  sessionId?: string;
  now: number;
  definitionHash?: string;
  /** The exfiltration guard asks about this call. */
  exfiltration: boolean;
  /** The tool's inputSchema: an argument it says holds a path has its bare values read as paths too. */
  schema?: unknown;
}

export const MAX_RULE_MINUTES = 7 * 24 * 60;

/**
 * `/a/./b/../c/` → `/a/c`; a backslash separates too; relative paths stay relative; undefined when `..` climbs
 * above the start, or a name ends in a dot or space (Windows drops those, so `src.` would be `src`).
 */
export function normalizeRulePath(path: string): string | undefined {
  if (path.includes('\0')) return undefined;
  const absolute = /^[\\/]/.test(path);
  const parts: string[] = [];
  for (const seg of path.split(/[\\/]/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else if (/[. ]$/.test(seg)) return undefined;
    else parts.push(seg);
  }
  return absolute ? `/${parts.join('/')}` : parts.join('/');
}

/** A file: URI's path, percent-decoded (`file://localhost/x`, `file:///x`, `file:x`); undefined when it has another host. */
function fileUriPath(uri: string): string | undefined {
  const m = /^file:(?:[\\/]{2}([^\\/]*))?(.*)$/is.exec(uri);
  if (!m || (m[1] && !/^localhost$/i.test(m[1]))) return undefined;
  return decodeOrUndefined(m[2]!.replace(/[?#].*$/s, ''));
}

function decodeOrUndefined(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Every reading of a path a server could give it, for a rule: as written, as a file: URI's path, and
 * percent-decoded (a server that decodes `%2e%2e` reads `..`). Undefined when one cannot be read.
 */
function readings(path: string): string[] | undefined {
  let p = path;
  if (/^file:/i.test(p)) {
    const inner = fileUriPath(p);
    if (inner === undefined) return undefined;
    p = inner;
  }
  const out = [p];
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(p); i++) {
    const decoded = decodeOrUndefined(p);
    if (decoded === undefined) return undefined;
    out.push((p = decoded));
  }
  return out;
}

/** True when every reading of `path` is `dir` or inside it, both absolute or both relative (never mixed). */
export function pathUnder(path: string, dir: string): boolean {
  const d = normalizeRulePath(dir);
  const forms = readings(path);
  if (d === undefined || forms === undefined) return false;
  return forms.every((form) => {
    const p = normalizeRulePath(form);
    if (p === undefined || p.startsWith('/') !== d.startsWith('/')) return false;
    if (d === '/' || d === '') return true;
    return p === d || p.startsWith(`${d}/`);
  });
}

/** The paths a call names, for a rule; undefined when it names more than is read (it is then never covered). */
function pathsOf(args: unknown, schema?: unknown): NamedPath[] | undefined {
  const { paths, complete } = namedPaths(args, { schema });
  return complete ? paths : undefined;
}

/**
 * True when the scope covers a call of `tool` with these arguments: for a path scope, every path the
 * call names anywhere (shared/path-like.ts namedPaths) is within it.
 */
export function scopeCovers(scope: RuleScope | undefined, tool: string, args: unknown, schema?: unknown): boolean {
  if (!scope || scope.kind === 'tool') return true;
  if (scope.kind === 'exact') return canonicalOrUndefined(args) === scope.arguments;
  const targets = pathsOf(args, schema);
  if (!targets?.length) return false;
  if (scope.kind === 'under') {
    return targets.every((t) => pathUnder(t.path, scope.dir)) && scope.keys.every((k) => targets.some((t) => t.key === k));
  }
  const want = new Set(scope.targets.map((t) => `${t.key}\0${t.path}`));
  const got = new Set(targets.map((t) => `${t.key}\0${t.path}`));
  return want.size === got.size && [...got].every((k) => want.has(k));
}

/** True when the rule allows this call now: not expired, same session, same definition, in scope. */
export function ruleApplies(rule: Rule, tool: string, check: RuleCheck): boolean {
  if (rule.expiresAt !== undefined && !(Date.parse(rule.expiresAt) > check.now)) return false;
  if (rule.session !== undefined && rule.session !== check.sessionId) return false;
  if (rule.definitionHash !== undefined && rule.definitionHash !== check.definitionHash) return false;
  if (check.exfiltration && !rule.coversExfiltration) return false;
  return scopeCovers(rule.scope, tool, check.arguments, check.schema);
}

/** A rule as Countersign has always had it: the whole tool, no end, no session, not past the guard. */
export function isPlainRule(rule: Rule): boolean {
  return (!rule.scope || rule.scope.kind === 'tool') && rule.expiresAt === undefined && rule.session === undefined && !rule.coversExfiltration;
}

/** The scope the person chose, built from the call it was chosen on; an error when it does not fit the call. */
export function buildScope(choice: ScopeChoice, tool: string, args: unknown): { scope: RuleScope } | { error: string } {
  switch (choice.kind) {
    case 'tool':
      return { scope: { kind: 'tool' } };
    case 'exact': {
      const text = canonicalOrUndefined(args);
      if (text === undefined) return { error: 'These arguments cannot be recorded exactly.' };
      if (text.length > 100_000) return { error: 'These arguments are too large to record as a rule.' };
      return { scope: { kind: 'exact', arguments: text } };
    }
    case 'same-target': {
      const targets = pathsOf(args);
      if (!targets) return { error: 'This call names more files than a rule can check.' };
      if (!targets.length) return { error: 'This call names no file, so there is no target to keep.' };
      return { scope: { kind: 'same-target', targets: targets.map((t) => ({ key: t.key, path: t.path })) } };
    }
    case 'under': {
      const targets = pathsOf(args);
      if (!targets) return { error: 'This call names more files than a rule can check.' };
      if (!targets.length) return { error: 'This call names no file, so there is no folder to keep it under.' };
      const dir = normalizeRulePath(choice.dir);
      if (dir === undefined || choice.dir.includes('\0')) return { error: `'${escapeControl(choice.dir)}' is not a folder path.` };
      if (!targets.every((t) => pathUnder(t.path, dir))) return { error: `Not every file this call names is under '${escapeControl(dir)}'.` };
      return { scope: { kind: 'under', dir, keys: [...new Set(targets.map((t) => t.key))] } };
    }
  }
}

/** The folders a card offers for "under": the files' common folder and up to two above it. */
export function folderChoices(tool: string, args: unknown): string[] {
  const paths = (pathsOf(args) ?? []).map((t) => normalizeRulePath(t.path));
  if (!paths.length || paths.some((p) => p === undefined)) return [];
  const absolute = paths[0]!.startsWith('/');
  if (paths.some((p) => p!.startsWith('/') !== absolute)) return [];
  const split = paths.map((p) => p!.split('/').filter(Boolean));
  // The common folder: shared leading parts, never the file itself.
  const common: string[] = [];
  for (let i = 0; ; i++) {
    const part = split[0]![i];
    if (part === undefined || !split.every((s) => s[i] === part && s.length > i + 1)) break;
    common.push(part);
  }
  const out: string[] = [];
  for (let n = common.length; n >= Math.max(1, common.length - 2); n--) out.push(`${absolute ? '/' : ''}${common.slice(0, n).join('/')}`);
  return out;
}

/** The rule in plain words: "write_file on 'fs': files under /home/ann/src, until 10:30, also after local reads". */
export function ruleText(rule: Rule, opts: { now?: number; clock?: (iso: string) => string } = {}): string {
  const parts = [`${escapeControl(rule.tool)} on '${escapeControl(rule.server)}': ${scopeText(rule.scope)}`];
  parts.push(lifetimeText(rule, opts));
  if (rule.coversExfiltration) parts.push('also after this agent read local data');
  return parts.join(', ');
}

export function scopeText(scope: RuleScope | undefined): string {
  if (!scope || scope.kind === 'tool') return 'any arguments';
  if (scope.kind === 'exact')
    return `exactly these arguments ${escapeControl(scope.arguments.length > 80 ? `${scope.arguments.slice(0, 80)}…` : scope.arguments)}`;
  if (scope.kind === 'under') return `files under ${escapeControl(scope.dir)}`;
  return scope.targets.length === 1 ? `only ${escapeControl(scope.targets[0]!.path)}` : `only ${scope.targets.map((t) => escapeControl(t.path)).join(' and ')}`;
}

function lifetimeText(rule: Rule, opts: { now?: number; clock?: (iso: string) => string }): string {
  if (rule.session !== undefined) return 'for this client session';
  if (rule.expiresAt === undefined) return 'always';
  const expired = Date.parse(rule.expiresAt) <= (opts.now ?? Date.now());
  const when = opts.clock ? opts.clock(rule.expiresAt) : rule.expiresAt;
  return expired ? `expired ${when}` : `until ${when}`;
}

/** True when `next` lets more calls through than `before` (longer, or past the guard): it needs consent. */
export function isLooserRule(
  next: Pick<Rule, 'expiresAt' | 'session' | 'coversExfiltration'>,
  before: Pick<Rule, 'expiresAt' | 'session' | 'coversExfiltration'>,
): boolean {
  if (next.coversExfiltration && !before.coversExfiltration) return true;
  if (next.session === undefined && before.session !== undefined) return true;
  if (before.expiresAt === undefined) return false;
  return next.expiresAt === undefined || Date.parse(next.expiresAt) > Date.parse(before.expiresAt);
}

function canonicalOrUndefined(value: unknown): string | undefined {
  try {
    return canonicalJson(value ?? {});
  } catch {
    return undefined;
  }
}
