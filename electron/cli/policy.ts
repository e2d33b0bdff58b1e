// `countersign policy …`: the effective policy (policy-show.ts), a policy file checked before it is
// deployed (policy-check.ts), and the person's choice of the team policy file. Setting,
// replacing, removing or confirming a path is consent (it decides what holds servers back), bound to the
// hash printed; discarding a path written by hand only takes it away. Every change goes through the core,
// checked, sealed and audited as the UI's.
import type { UnsealedGrant } from '../../shared/api.js';
import { escapeControl as e } from '../../shared/escape.js';
import { runPolicyCheck } from './policy-check.js';
import { showEffectivePolicy } from './policy-show.js';
import { policyChangeHash } from '../broker/policy/policy-path.js';
import { lastFlag, parseArgs, UsageError } from './args.js';
import { consent } from './confirm.js';
import { runPolicyHash } from './policy-hash.js';
import { withCore, type CoreApi } from './core-client.js';
import { POLICY_USAGE } from './usage.js';

const say = (text: string): void => void process.stdout.write(text);

export async function runPolicy(argv: string[], dataDir: string): Promise<number> {
  // Needs no broker: a hash for a catalogue entry.
  if (argv[0] === 'hash') return runPolicyHash(argv.slice(1));
  // `policy --json` is `policy show --json`.
  const [verb, ...rest] = argv[0]?.startsWith('-') ? ['show', ...argv] : argv;
  const args = parseArgs(rest, { values: ['hash'], booleans: ['json', 'yes', 'user'] });
  // Checking a file before it is deployed needs no broker.
  if (verb === 'check') return runPolicyCheck(args.positional[0], args.bools.has('user'), args.bools.has('json'));
  const bound = (printed: string) => [{ flag: 'hash', printed, given: lastFlag(args, 'hash'), checkHere: true }];
  return withCore(dataDir, async (api) => {
    switch (verb) {
      case undefined:
      case 'show':
        return show(api, args.bools.has('json'));
      case 'set':
      case 'unset': {
        const to = verb === 'set' ? args.positional[0] : null;
        if (to === undefined) throw new UsageError("policy set needs the policy file's absolute path");
        const from = (await api.getSettings()).policyPath;
        if (to === null && from === undefined) {
          say('No team policy file was set in Countersign: nothing to remove.\n');
          return 0;
        }
        const hash = policyChangeHash(from, to);
        say(`Team policy file now: ${from ? e(from) : 'none'}\nThen:                 ${to === null ? 'none' : e(to)}\n  change hash ${hash}\n`);
        if (to === null) say('What it blocks, pins and always asks about would no longer hold servers back.\n');
        else say('A team policy only adds friction; it never lets a server run without your approval.\n');
        if (!(await consent(to === null ? 'Remove the team policy?' : 'Use this team policy?', { yes: args.bools.has('yes'), bound: bound(hash) })))
          return cancelled();
        await api.updateSettings({ policyPath: to });
        say(to === null ? 'Removed.\n' : 'Set.\n');
        return 0;
      }
      case 'confirm':
      case 'discard': {
        const grant = await unconfirmed(api);
        if (!grant) {
          say('No team policy path written outside Countersign waits for confirmation.\n');
          return 0;
        }
        say(`${e(grant.what)}\n  File: ${e(grant.path ?? '')}\n  hash ${grant.hash}\n`);
        const ref = { kind: 'policy' as const, server: '*', hash: lastFlag(args, 'hash') ?? grant.hash };
        if (verb === 'discard') {
          await api.discardUnsealed(ref);
          say('Discarded.\n');
          return 0;
        }
        if (
          !(await consent('Use this team policy?', {
            yes: args.bools.has('yes'),
            bound: [{ flag: 'hash', printed: grant.hash, given: lastFlag(args, 'hash') }],
          }))
        )
          return cancelled();
        await api.confirmUnsealed(ref);
        say('Confirmed.\n');
        return 0;
      }
      default:
        throw new UsageError(`unknown policy command '${verb}'\n${POLICY_USAGE}`);
    }
  });
}

async function unconfirmed(api: CoreApi): Promise<UnsealedGrant | undefined> {
  return (await api.listUnsealed()).find((g) => g.kind === 'policy');
}

async function show(api: CoreApi, json: boolean): Promise<number> {
  const grant = json ? undefined : await unconfirmed(api);
  const hint = grant
    ? `Not confirmed: settings.json names ${e(grant.path ?? '')} (written outside Countersign), so it is ignored.\n  Confirm it: countersign policy confirm --hash ${grant.hash}   or discard it: countersign policy discard\n`
    : undefined;
  return showEffectivePolicy(api, json, hint);
}

function cancelled(): number {
  say('Nothing changed.\n');
  return 1;
}
