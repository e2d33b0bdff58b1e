// `countersign servers review <name> [accept|reject [tool…]]`: shows held changes with their hashes, and
// accepts exactly the ones shown (or, with --hash TOOL=H, the ones seen earlier).
import type { ReviewedTool } from '../../shared/api.js';
import { escapeControl } from '../../shared/escape.js';
import { keyValues, UsageError, type ParsedArgs } from './args.js';
import { confirm } from './confirm.js';
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
  const seen = keyValues(args, 'hash') ?? {};
  const unknown = only.filter((t) => !changes.tools.some((c) => c.name === t));
  if (unknown.length) throw new UsageError(`no change waits for review for: ${unknown.join(', ')}`);
  const chosen = changes.tools.filter((t) => !only.length || only.includes(t.name));
  const tools: ReviewedTool[] = chosen.map((t) => ({ name: t.name, hash: seen[t.name] ?? t.hash }));
  const withIdentity = action === 'accept' && !only.length ? changes.identityHash : undefined;
  const what = `${action === 'accept' ? 'Accept' : 'Reject'} ${tools.length ? tools.map((t) => escapeControl(t.name)).join(', ') : 'the new identity'}?`;
  if (!(await confirm(what, { yes: args.bools.has('yes') }))) {
    say('Nothing changed.\n');
    return 1;
  }
  await api.reviewChanges(name, action, tools, withIdentity);
  say(`${action === 'accept' ? 'Accepted' : 'Rejected'}.\n`);
  return 0;
}
