// `countersign servers limits <name> [...]` and the limit flags of `servers add`: what a server may
// reach, and whether this machine really enforces it. Tighter limits apply at once; looser ones print
// before and after, ask, and are bound to the launch hash printed.
import { resolve } from 'node:path';
import type { ServerView } from '../../shared/api.js';
import { escapeControl as e, terminalJson } from '../../shared/escape.js';
import { isLooser, NO_LIMITS, sameLimits, summarizeLimits, type LimitsProfile } from '../../shared/limits.js';
import { ALL_NETWORK_ENV } from '../../shared/network-env.js';
import { lastFlag, UsageError, type ParsedArgs } from './args.js';
import { consent, ConsentRefused } from './confirm.js';
import type { CoreApi } from './core-client.js';
import { launchText } from './server-text.js';

/** Flags that set limits (for `servers add` and `servers limits`). */
export const LIMIT_VALUES = ['read-only', 'write', 'pass-env'];
export const LIMIT_BOOLEANS = ['no-network', 'network', 'all-files', 'no-files', 'no-pass-env', 'no-network-env', 'network-env', 'offered'];
/** The person's override where this machine cannot enforce the limits, and taking it back. */
export const OVERRIDE_BOOLEANS = ['run-without-limits', 'require-limits'];

const say = (text: string): void => void process.stdout.write(text);

function hasLimitFlags(args: ParsedArgs): boolean {
  return LIMIT_VALUES.some((f) => args.flags.has(f)) || LIMIT_BOOLEANS.some((f) => args.bools.has(f));
}

/** The profile the flags ask for, starting from `base`: what no flag names stays as it is. */
export function limitsFromFlags(args: ParsedArgs, base: LimitsProfile, cwd = process.cwd()): LimitsProfile | undefined {
  if (!hasLimitFlags(args)) return undefined;
  if (args.bools.has('no-network') && args.bools.has('network')) throw new UsageError('give --no-network or --network, not both');
  const read = (args.flags.get('read-only') ?? []).map((p) => resolve(cwd, p));
  const write = (args.flags.get('write') ?? []).map((p) => resolve(cwd, p));
  const fsFlags = [read.length || write.length ? 'paths' : '', args.bools.has('all-files') ? 'all' : '', args.bools.has('no-files') ? 'none' : ''].filter(
    Boolean,
  );
  if (fsFlags.length > 1) throw new UsageError('give --read-only/--write DIR, --no-files or --all-files, not several');
  const next: LimitsProfile = { ...base };
  if (args.bools.has('no-network')) next.network = 'none';
  if (args.bools.has('network')) next.network = 'unrestricted';
  if (fsFlags[0] === 'paths') next.filesystem = { read, write };
  if (fsFlags[0] === 'none') next.filesystem = { read: [], write: [] };
  if (fsFlags[0] === 'all') next.filesystem = 'host';
  if (args.bools.has('network-env') && (args.bools.has('no-network-env') || args.bools.has('no-pass-env')))
    throw new UsageError('give --network-env or --no-network-env/--no-pass-env, not both');
  // --no-pass-env: only the essentials (PATH, HOME…), not even the network variables; then --pass-env's names.
  if (args.bools.has('no-pass-env')) next.passEnv = [];
  if (args.bools.has('no-pass-env') || args.bools.has('no-network-env')) next.noPassEnv = [ALL_NETWORK_ENV];
  if (args.bools.has('network-env')) delete next.noPassEnv;
  if (args.flags.has('pass-env')) next.passEnv = args.flags.get('pass-env')!;
  return next;
}

/** Only what is set; none at all means none (the config then has no `limits`). */
export function limitsForAdd(args: ParsedArgs): LimitsProfile | undefined {
  const limits = limitsFromFlags(args, NO_LIMITS);
  if (args.bools.has('offered')) throw new UsageError('--offered applies to servers limits, once the server is known');
  return limits && !(sameLimits(limits, NO_LIMITS) && limits.filesystem === 'host') ? limits : undefined;
}

function stateLine(what: string, state: string): string {
  return `  ${what.padEnd(11)} ${state}`;
}

/** The limits as the person reads them: what they are, and what enforces each here (or why nothing does). */
export function limitsText(s: ServerView): string {
  const v = s.limits;
  if (!v) return `'${e(s.name)}' is a remote server: limits apply to servers Countersign starts on this machine.\n`;
  const p = v.profile;
  const files =
    p.filesystem === 'host'
      ? 'all of yours (no limit)'
      : `read-only: ${p.filesystem.read.map((x) => e(x)).join(', ') || 'none'}; writable: ${p.filesystem.write.map((x) => e(x)).join(', ') || 'none'}`;
  const lines = [
    `Limits of '${e(s.name)}': ${e(v.badge)}`,
    `  network:    ${p.network === 'none' ? 'none' : 'unrestricted (a host allowlist is not built yet)'}`,
    `  files:      ${files}`,
    `  env:        the scrubbed environment${p.passEnv.length ? ` plus ${p.passEnv.map((x) => e(x)).join(', ')}` : ''}`,
    `  network variables: ${networkEnvLine(v)}`,
    `Enforced here by ${v.enforcement.sandbox === 'none' ? 'nothing: NOT SANDBOXED' : v.enforcement.sandbox}${v.enforcement.reason ? ` (${e(v.enforcement.reason)})` : ''}:`,
    stateLine('network', v.enforcement.network),
    stateLine('files', v.enforcement.filesystem),
    stateLine('processes', v.enforcement.processes === 'enforced' ? 'enforced (own PID namespace)' : v.enforcement.processes),
  ];
  for (const c of v.enforcement.caveats ?? []) lines.push(`  not covered: ${e(c)}`);
  if (v.unenforced) {
    lines.push(
      v.unenforced.runsWithoutLimits
        ? `It runs WITHOUT its limits here, as you allowed (${e(v.unenforced.reason)}). Require them again: countersign servers limits ${e(s.name)} --require-limits`
        : `It does NOT start here: its limits cannot be enforced (${e(v.unenforced.reason)}).`,
    );
    if (v.unenforced.fix) lines.push(`  fix: ${e(v.unenforced.fix)}`);
    if (!v.unenforced.runsWithoutLimits) lines.push(`  or let it run without them: countersign servers limits ${e(s.name)} --run-without-limits`);
  } else if (v.enforcement.fix) lines.push(`  fix: ${e(v.enforcement.fix)}`);
  if (v.hidden?.length) {
    lines.push('Hidden from this server, whatever its paths say:');
    for (const h of v.hidden) lines.push(`  ${e(h.path)} (${e(h.what)})`);
  }
  if (v.running)
    lines.push(`Running now under: ${e(v.running.badge)}${v.running.enforcement.runsWithoutLimits ? ' (WITHOUT its limits, as you allowed)' : ''}`);
  if (v.offer) {
    lines.push(`Offered (not applied): ${e(summarizeLimits(v.offer.limits))}`);
    for (const why of v.offer.why) lines.push(`  because ${e(why)}`);
    lines.push(`  accept with: countersign servers limits ${e(s.name)} --offered`);
  }
  return lines.join('\n') + '\n';
}

/** Names only: a proxy or index URL can hold a password. */
function networkEnvLine(v: NonNullable<ServerView['limits']>): string {
  const taken = v.profile.noPassEnv ?? [];
  const set = v.networkEnv ?? [];
  const passed = set.length ? `${set.map((x) => e(x)).join(', ')} (values not shown)` : 'none is set where Countersign runs';
  if (taken.includes(ALL_NETWORK_ENV)) return 'not passed (--no-pass-env); give them back with --network-env';
  return `${passed}${taken.length ? `; not passed: ${taken.map((x) => e(x)).join(', ')}` : ''}; take them away with --no-network-env`;
}

export async function runLimits(api: CoreApi, s: ServerView, args: ParsedArgs): Promise<number> {
  if (args.bools.has('run-without-limits') || args.bools.has('require-limits')) return runOverride(api, s, args);
  const current = s.limits?.profile ?? NO_LIMITS;
  const base = args.bools.has('offered') ? (s.limits?.offer?.limits ?? current) : current;
  const next = limitsFromFlags(args, base);
  if (!next) {
    say(args.bools.has('json') ? terminalJson(s.limits ?? null, 2) + '\n' : limitsText(s));
    return 0;
  }
  if (!s.limits) throw new UsageError(`'${s.name}' is a remote server: limits apply to servers Countersign starts on this machine`);
  if (!isLooser(next, current)) {
    await api.setLimits(s.name, next);
    say(`Limits of '${e(s.name)}' are now: ${e(summarizeLimits(next))} (applied at once; its running sessions were ended to restart under them).\n`);
    return 0;
  }
  say(launchText(s.name, s.launch));
  say(`Now:  ${e(summarizeLimits(current))}\nThen: ${e(summarizeLimits(next))}\n`);
  const given = lastFlag(args, 'hash');
  // --yes grants exactly the limits named on this command line: an offer can change after it was shown.
  if (args.bools.has('yes') && args.bools.has('offered'))
    throw new ConsentRefused(
      'nothing changed: with --yes, name the looser limits with their flags (--network, --write DIR, …) rather than --offered, so that it grants exactly what you name.',
    );
  if (!(await consent('Let it reach more than before?', { yes: args.bools.has('yes'), bound: [{ flag: 'hash', printed: s.launch.hash, given }] }))) {
    say('Nothing changed.\n');
    return 1;
  }
  await api.setLimits(s.name, next, given ?? s.launch.hash);
  say(`Limits of '${e(s.name)}' loosened to: ${e(summarizeLimits(next))}.\n`);
  return 0;
}

/** `--run-without-limits` (asks, bound to the launch printed) and `--require-limits` (takes it back at once). */
async function runOverride(api: CoreApi, s: ServerView, args: ParsedArgs): Promise<number> {
  if (args.bools.has('run-without-limits') && args.bools.has('require-limits')) throw new UsageError('give --run-without-limits or --require-limits, not both');
  if (hasLimitFlags(args)) throw new UsageError('--run-without-limits and --require-limits take no limit flags');
  if (!s.limits) throw new UsageError(`'${s.name}' is a remote server: limits apply to servers Countersign starts on this machine`);
  if (args.bools.has('require-limits')) {
    await api.setRunWithoutLimits(s.name, false);
    say(`'${e(s.name)}' needs its limits again: it does not start where they cannot be enforced.\n`);
    return 0;
  }
  say(launchText(s.name, s.launch));
  say(
    s.limits.unenforced
      ? `Its limits cannot be enforced here: ${e(s.limits.unenforced.reason)}.\n`
      : 'Its limits are enforced here now; this applies only where they cannot be.\n',
  );
  say("Without them it reaches your files and the network as you do, and sees Countersign's own files.\n");
  const given = lastFlag(args, 'hash');
  if (!(await consent('Let it run without its limits?', { yes: args.bools.has('yes'), bound: [{ flag: 'hash', printed: s.launch.hash, given }] }))) {
    say('Nothing changed.\n');
    return 1;
  }
  await api.setRunWithoutLimits(s.name, true, given ?? s.launch.hash);
  say(`'${e(s.name)}' may run without its limits where they cannot be enforced (for this exact command and limits).\n`);
  return 0;
}
