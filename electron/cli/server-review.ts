// `countersign servers review <name> [accept|reject [tool…]]`: shows held changes with their hashes, and
// accepts exactly the ones shown (or, with --hash TOOL=H, the ones seen earlier).
import type { ReviewedTool } from '../../shared/api.js';
import { escapeControl } from '../../shared/escape.js';
import { keyValues, lastFlag, UsageError, type ParsedArgs } from './args.js';
import { confirmRemoval, consent } from './confirm.js';
import type { CoreApi } from './core-client.js';
import { changesText } from './server-text.js';

const say = (text: string): void => void process.stdout.write(text);

export async function runReview(api: CoreApi, name: string, args: ParsedArgs): Promise<number> {
  const [, action, ...only] = args.positional;
  const changes = (await api.listChanges()).find((c) => c.server === name);
  if (!changes) {
    say(`Nothing of '${escapeControl(name)}' waits for review.\n`);
    return 0;
  }
  say(changesText(changes));
  if (action === undefined) return 0;
  if (action !== 'accept' && action !== 'reject') throw new UsageError(`servers review ${name} takes accept or reject, not '${action}'`);
  const hashes = keyValues(args, 'hash') ?? {};
  const seen = (tool: string): string | undefined => (Object.hasOwn(hashes, tool) ? hashes[tool] : undefined);
  const unknown = only.filter((t) => !changes.tools.some((c) => c.name === t));
  if (unknown.length) throw new UsageError(`no change waits for review for: ${unknown.join(', ')}`);
  const chosen = changes.tools.filter((t) => !only.length || only.includes(t.name));
  const tools: ReviewedTool[] = chosen.map((t) => ({ name: t.name, hash: seen(t.name) ?? t.hash }));
  const accepting = action === 'accept';
  const withIdentity = accepting && !only.length ? changes.identityHash : undefined;
  const what = `${accepting ? 'Accept' : 'Reject'} ${tools.length ? tools.map((t) => escapeControl(t.name)).join(', ') : 'the new identity'}?`;
  const yes = args.bools.has('yes');
  // Accepting lets changed definitions run: bound to each hash printed. Rejecting only takes away.
  const agreed = accepting
    ? await consent(what, {
        yes,
        bound: [
          ...chosen.map((t) => ({ flag: 'hash', usage: `--hash ${escapeControl(t.name)}=${t.hash}`, printed: t.hash, given: seen(t.name) })),
          { flag: 'identity', printed: withIdentity, given: lastFlag(args, 'identity') },
        ],
      })
    : await confirmRemoval(what, { yes });
  if (!agreed) {
    say('Nothing changed.\n');
    return 1;
  }
  // No trailing undefined: over the socket it would arrive as null.
  if (withIdentity === undefined) await api.reviewChanges(name, action, tools);
  else await api.reviewChanges(name, action, tools, lastFlag(args, 'identity') ?? withIdentity);
  say(`${action === 'accept' ? 'Accepted' : 'Rejected'}.\n`);
  return 0;
}
