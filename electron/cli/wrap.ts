// `countersign wrap <client>` and `countersign unwrap <client>`: the diff first, then a confirmation
// (a question on a terminal, --yes in scripts), then the change through the core, bound to the plan the
// person saw: if the file changed in between, the core refuses. Unwrapping takes Countersign out of the
// client's way, so without a terminal it is consent as in confirm.ts: --yes with the plan hash printed.
import { createInterface } from 'node:readline/promises';
import { CLIENT_IDS, type ClientId, type FilePlan, type UnwrapFilePlan, type WrapEntryPlan, type WrapPreview, type WrapResult } from '../../shared/clients.js';
import { escapeControl } from '../../shared/escape.js';
import { lastFlag, parseArgs, UsageError } from './args.js';
import { projectOf, reported } from './clients.js';
import { withCore } from './core-client.js';
import { consent } from './confirm.js';

const say = (text: string): void => void process.stdout.write(text);
const esc = (text: string): string => escapeControl(text);

function clientArg(value: string | undefined, verb: string): ClientId {
  if (!value) throw new UsageError(`${verb} needs a client: ${CLIENT_IDS.join(', ')}`);
  if (!(CLIENT_IDS as readonly string[]).includes(value)) throw new UsageError(`unknown client '${value}'; known clients: ${CLIENT_IDS.join(', ')}`);
  return value as ClientId;
}

function printDiff(diff: string): void {
  const color = process.stdout.isTTY && !process.env.NO_COLOR;
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    const shown = escapeControl(line, { keepNewlines: true });
    if (!color || line.startsWith('---') || line.startsWith('+++')) say(shown + '\n');
    else if (line.startsWith('+')) say(`\x1b[32m${shown}\x1b[0m\n`);
    else if (line.startsWith('-')) say(`\x1b[31m${shown}\x1b[0m\n`);
    else if (line.startsWith('@@')) say(`\x1b[36m${shown}\x1b[0m\n`);
    else say(shown + '\n');
  }
}

function entryLine(e: WrapEntryPlan): string {
  const name = esc(e.group ? `${e.entry} (${e.group})` : e.entry);
  const server = esc(e.server ?? '');
  const what = {
    add: `added to Countersign as '${server}'`,
    reuse: `uses Countersign's '${server}' (the same server)`,
    update: `rewritten to start Countersign's '${server}' with the absolute command`,
    already: `already goes through Countersign ('${server}')`,
    refuse: `left alone: ${esc(e.reason ?? '')}`,
    skip: 'left alone (not in --only)',
  }[e.action];
  return `    ${name}: ${what}${e.note && e.action !== 'update' ? ` (${esc(e.note)})` : ''}\n`;
}

async function confirm(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY) {
    throw new Error(
      'nothing was written: this is not a terminal, so Countersign cannot ask. Run again with --yes to write these changes, or --dry-run to only look.',
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

export function runWrap(argv: string[], dataDir: string): Promise<number> {
  return reported(() => runWrapNow(argv, dataDir));
}

async function runWrapNow(argv: string[], dataDir: string): Promise<number> {
  const args = parseArgs(argv, { values: ['only', 'project'], booleans: ['dry-run', 'yes'] });
  const client = clientArg(args.positional[0], 'wrap');
  const only = args.flags
    .get('only')
    ?.flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const opts = { project: projectOf(lastFlag(args, 'project')), ...(only?.length && { only }) };
  const yes = args.bools.has('yes');
  const dryRun = args.bools.has('dry-run');
  const count = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;
  const shown = (preview: WrapPreview): number | undefined => {
    for (const f of preview.files) printFile(f);
    if (!preview.changes) {
      say('Nothing to change.\n');
      // A file it could not read or may not write is a failure for scripts, even when nothing else needed doing.
      return preview.files.some((f) => f.error || f.readOnly) ? 1 : 0;
    }
    if (dryRun) {
      say(`Dry run: nothing was written (${count(preview.changes)} would change).\n`);
      return 0;
    }
    return undefined;
  };
  let result: WrapResult | undefined;
  if (yes) {
    // No one reads in between: preview and write in one visit to the core, which plans once.
    const done = await withCore(dataDir, async (api) => {
      const preview = await api.previewWrap(client, opts);
      const code = shown(preview);
      return code !== undefined ? code : api.wrapClient(client, opts, preview.planHash);
    });
    if (typeof done === 'number') return done;
    result = done;
  } else {
    // Preview and write are two visits to the core, so no lock is held while the person reads.
    const preview = await withCore(dataDir, (api) => api.previewWrap(client, opts));
    const code = shown(preview);
    if (code !== undefined) return code;
    if (!(await confirm(`Write these changes (${count(preview.changes)})?`, false))) {
      say('Nothing was written.\n');
      return 1;
    }
    result = await withCore(dataDir, (api) => api.wrapClient(client, opts, preview.planHash));
  }
  for (const f of result.files) say(`Wrapped ${f.wrapped.map(esc).join(', ')} in ${esc(f.path)} (backup: ${esc(f.backup)}).\n`);
  if (result.added.length) {
    say(`Added to Countersign, untrusted: ${result.added.map(esc).join(', ')}. Each starts only once you approve its command:\n`);
    for (const name of result.added) say(`  countersign servers approve ${esc(name)}\n`);
    say('(or in the UI: Servers). ');
  }
  say('Restart the client, or reload its MCP servers, to use them.\n');
  const project = lastFlag(args, 'project') ? ` --project ${esc(opts.project)}` : '';
  say(`To undo: countersign unwrap ${client}${project} (puts back your file as it was, keeping edits you make meanwhile).\n`);
  return 0;
}

function printFile(f: FilePlan): void {
  say(`${esc(f.path)}${f.scope === 'project' ? ' (project)' : ''}\n`);
  if (f.error) say(`  Countersign leaves this file alone: it cannot read it (${esc(f.error)}).\n`);
  if (f.readOnly) say(`  ${esc(f.readOnly)}\n`);
  for (const e of f.entries) say(entryLine(e));
  if (f.diff) {
    if (f.lineEnds)
      say(`  (its lines end with ${f.lineEnds === 'crlf' ? 'CRLF' : 'a mix of CRLF and LF'}; the diff shows lines, and the file keeps its line ends)\n`);
    printDiff(f.diff);
  }
}

function printUnwrapFile(f: UnwrapFilePlan): void {
  const how = {
    exact: 'back to its exact bytes from before the wrap',
    entries: "edited since the wrap: only Countersign's entries are reverted",
    missing: 'the file is gone; nothing to restore',
  }[f.how];
  say(`${esc(f.path)}: ${how}\n`);
  for (const e of f.entries) say(`    ${esc(e.entry)}: ${e.outcome === 'restored' ? 'restored' : `kept as is (${esc(e.why ?? '')})`}\n`);
  if (f.diff) {
    if (f.lineEnds) say(`  (its lines end with ${f.lineEnds === 'crlf' ? 'CRLF' : 'a mix of CRLF and LF'}; the file keeps them)\n`);
    printDiff(f.diff);
  }
}

export function runUnwrap(argv: string[], dataDir: string): Promise<number> {
  return reported(() => runUnwrapNow(argv, dataDir));
}

async function runUnwrapNow(argv: string[], dataDir: string): Promise<number> {
  const args = parseArgs(argv, { values: ['project', 'hash'], booleans: ['yes', 'dry-run'] });
  const client = clientArg(args.positional[0], 'unwrap');
  const opts = { project: projectOf(lastFlag(args, 'project')) };
  const preview = await withCore(dataDir, (api) => api.previewUnwrap(client, opts));
  if (!preview.files.length) {
    say(`Nothing to unwrap: Countersign has not wrapped ${client}'s config (or it was unwrapped already).\n`);
    return 0;
  }
  for (const f of preview.files) printUnwrapFile(f);
  say(`  plan hash ${preview.planHash}\n`);
  if (args.bools.has('dry-run')) {
    say('Dry run: nothing was written.\n');
    return 0;
  }
  const given = lastFlag(args, 'hash');
  if (
    !(await consent('Put these files back (its servers then start without Countersign)?', {
      yes: args.bools.has('yes'),
      bound: [{ flag: 'hash', printed: preview.planHash, given }],
    }))
  ) {
    say('Nothing was written.\n');
    return 1;
  }
  const result = await withCore(dataDir, (api) => api.unwrapClient(client, opts, given ?? preview.planHash));
  for (const f of result.files) if (f.backup) say(`Your file as it was just now is saved in ${esc(f.backup)}.\n`);
  if (result.servers.length) {
    say(`Countersign keeps its servers (${result.servers.map(esc).join(', ')}); remove any you no longer need with: countersign servers remove <name>\n`);
  }
  return 0;
}
