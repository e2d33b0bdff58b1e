// `countersign servers …`: every change goes through the core (the running broker, or the same core
// in-process), so it is checked and audited exactly as the UI's. Consent, trust, pins and reviews print
// what they act on and are bound to its hash: what changed meanwhile is refused.
import type { ServerConfig, ServerView } from '../../shared/api.js';
import { escapeControl, terminalJson } from '../../shared/escape.js';
import { parseServerConfig, SettingsError } from '../broker/store/settings-store.js';
import { keyValues, lastFlag, parseArgs, UsageError, type ParsedArgs } from './args.js';
import { consent, type Bound } from './confirm.js';
import { withCore, type CoreApi } from './core-client.js';
import { runReview } from './server-review.js';
import { catalogueText, launchText, pinText, slowStartText, toolsText, managedText } from './server-text.js';
import { catalogueStanding } from '../../shared/catalogue-text.js';
import { SERVERS_USAGE } from './usage.js';
import { LIMIT_BOOLEANS, LIMIT_VALUES, limitsForAdd, limitsText, OVERRIDE_BOOLEANS, runLimits } from './server-limits.js';
import { summarizeLimits } from '../../shared/limits.js';

export { SERVERS_USAGE };

const NAMED = new Set(['add', 'show', 'approve', 'trust', 'pin', 'remove', 'untrust', 'unpin', 'review', 'limits']);
const say = (text: string): void => void process.stdout.write(text);
const q = (name: string): string => `'${escapeControl(name)}'`;

export async function view(api: CoreApi, name: string): Promise<ServerView> {
  const found = (await api.listServers()).find((s) => s.name === name);
  if (!found) throw new SettingsError(`No server named "${name}".`);
  return found;
}

/**
 * The launch `approve` shows: for a server whose client fills variables at launch, the latest one waiting
 * (filled in, as it would run); otherwise the stored one.
 */
async function launchToApprove(api: CoreApi, s: ServerView): Promise<ServerView['launch']> {
  if (!('fills' in s.config) || !s.config.fills) return s.launch;
  const waiting = (await api.listLaunchRequests()).filter((r) => r.server === s.name).sort((a, b) => b.lastAt - a.lastAt);
  return waiting[0]?.launch ?? s.launch;
}

export async function runServers(argv: string[], dataDir: string): Promise<number> {
  const [verb, ...rest] = argv;
  const args = parseArgs(rest, {
    values: ['env', 'cwd', 'url', 'header', 'hash', 'listing', 'identity', ...LIMIT_VALUES],
    booleans: ['json', 'yes', ...LIMIT_BOOLEANS, ...OVERRIDE_BOOLEANS],
  });
  const name = args.positional[0];
  if (verb && NAMED.has(verb) && !name) throw new UsageError(`servers ${verb} needs a name`);
  switch (verb) {
    case 'add':
      return add(args, name!, dataDir);
    case 'list':
      return list(args, dataDir);
    case 'show':
      return withCore(dataDir, async (api) => {
        const s = await view(api, name!);
        say(
          args.bools.has('json')
            ? terminalJson(s, 2) + '\n'
            : launchText(s.name, s.launch) + catalogueText(s) + managedText(s) + limitsText(s) + toolsText(s) + pinText(s) + slowStartText(s),
        );
        return 0;
      });
    case 'approve':
      return withCore(dataDir, async (api) => {
        const launch = await launchToApprove(api, await view(api, name!));
        say(launchText(name!, launch));
        const hash = bound(args, launch.hash);
        if (!(await consent('Let it run?', { yes: args.bools.has('yes'), bound: [launchBound(args, launch.hash)] }))) return cancelled();
        await api.approveLaunch(name!, hash);
        say('Approved.\n');
        return 0;
      });
    case 'trust':
    case 'pin':
      return withCore(dataDir, async (api) => {
        const s = await view(api, name!);
        say(launchText(name!, s.launch) + toolsText(s));
        const seen = { launchHash: bound(args, s.launch.hash), listingHash: lastFlag(args, 'listing') ?? s.listingHash };
        const question = verb === 'trust' ? 'Trust it: its read-only tools run without asking?' : 'Pin it to what runs now?';
        const listing = { flag: 'listing', printed: s.listingHash, given: lastFlag(args, 'listing') };
        if (!(await consent(question, { yes: args.bools.has('yes'), bound: [launchBound(args, s.launch.hash), listing] }))) return cancelled();
        if (verb === 'trust') {
          await api.setTrust(name!, true, seen);
          say(`Trusted ${q(name!)}.\n`);
        } else {
          await api.pinServer(name!, seen);
          say(pinText(await view(api, name!)));
        }
        return 0;
      });
    case 'remove':
    case 'untrust':
    case 'unpin':
      // These take something away: no hash, no question.
      await withCore(dataDir, async (api) => {
        await view(api, name!);
        if (verb === 'remove') await api.removeServer(name!);
        else if (verb === 'unpin') await api.unpinServer(name!);
        else await api.setTrust(name!, false);
      });
      say(`${verb === 'remove' ? 'Removed' : verb === 'unpin' ? 'Unpinned' : 'Untrusted'} ${q(name!)}.\n`);
      return 0;
    case 'review':
      return withCore(dataDir, (api) => runReview(api, name!, args));
    case 'limits':
      return withCore(dataDir, async (api) => runLimits(api, await view(api, name!), args));
    default:
      throw new UsageError(`unknown servers command '${verb ?? ''}'\n${SERVERS_USAGE}`);
  }
}

async function add(args: ParsedArgs, name: string, dataDir: string): Promise<number> {
  const url = lastFlag(args, 'url');
  let config: ServerConfig;
  if (url) {
    if (args.rest.length) throw new UsageError('give either --url or a command after --, not both');
    config = { url, headers: keyValues(args, 'header') };
  } else {
    const [command, ...cmdArgs] = args.rest;
    if (!command) throw new UsageError('servers add needs a command after --, or --url');
    config = { command, args: cmdArgs, env: keyValues(args, 'env'), cwd: lastFlag(args, 'cwd'), limits: limitsForAdd(args) };
  }
  if ('url' in config && limitsForAdd(args)) throw new UsageError('limits apply to servers Countersign starts on this machine, not to a --url server');
  const clean = parseServerConfig(JSON.parse(JSON.stringify(config)));
  // The core looks the command up on the PATH it starts servers with (the broker's): said at once.
  const added = await withCore(dataDir, async (api) => {
    await api.addServer(name, clean);
    return view(api, name);
  });
  say(`Added ${q(name)}. It starts untrusted: every call asks until you trust it.\n`);
  if (added.commandNotFound) process.stderr.write(`countersign: warning: ${escapeControl(added.commandNotFound)}\n`);
  if ('command' in clean) say(`It will not start until you approve its command line: countersign servers approve ${escapeControl(name)} (or in the UI).\n`);
  if ('command' in clean && clean.limits)
    say(`Its limits: ${escapeControl(summarizeLimits(clean.limits))} (see: countersign servers limits ${escapeControl(name)}).\n`);
  return 0;
}

async function list(args: ParsedArgs, dataDir: string): Promise<number> {
  const servers = await withCore(dataDir, (api) => api.listServers());
  if (args.bools.has('json')) {
    const out = servers.map((s) => ({
      name: s.name,
      trusted: s.trusted,
      status: s.status,
      config: s.config,
      limits: 'command' in s.config && s.config.limits ? s.limits?.badge : undefined,
      slowStart: s.slowStart,
      commandNotFound: s.commandNotFound,
      catalogue: s.catalogue,
    }));
    say(terminalJson(out, 2) + '\n');
    return 0;
  }
  if (!servers.length) {
    say('No servers yet. Add one with: countersign servers add <name> -- <command> [args…]\n');
    return 0;
  }
  for (const s of servers) {
    const c = s.config;
    const target = 'url' in c ? c.url : [c.command, ...(c.args ?? [])].join(' ');
    const org = catalogueStanding(s.catalogue);
    say(
      `${escapeControl(s.name)}\t${s.trusted ? 'trusted' : 'untrusted'}${org ? ` (${escapeControl(org)})` : ''}\t${escapeControl(target)}${'command' in c && c.limits && s.limits ? `\t${escapeControl(s.limits.badge)}` : ''}${s.commandNotFound ? '\tcommand not found (countersign doctor)' : ''}${s.slowStart ? `\tslow start: ${Math.round(s.slowStart.ms / 1000)} s (countersign doctor)` : ''}\n`,
    );
  }
  return 0;
}

/** The launch hash to bind to: one the person saw earlier (--hash), else the one just printed. */
function bound(args: ParsedArgs, shown: string): string {
  return lastFlag(args, 'hash') ?? shown;
}

function launchBound(args: ParsedArgs, printed: string): Bound {
  return { flag: 'hash', printed, given: lastFlag(args, 'hash') };
}

function cancelled(): number {
  say('Nothing changed.\n');
  return 1;
}
