// `countersign undo`: put back what an agent's call changed. Prints the preview (every file, what it
// becomes, conflicts with the three versions' sizes), then asks on a terminal; without one it needs
// --yes and --hash of the printed preview, and a conflict needs --confirm-conflicts as well.
import type { UndoableCall, UndoFilePlan, UndoPreview, UndoTarget, UndoVersion } from '../../shared/undo.js';
import { escapeControl } from '../../shared/escape.js';
import { formatBytes } from '../../shared/call-targets.js';
import { lastFlag, parseArgs, UsageError } from './args.js';
import { reported } from './clients.js';
import { consent } from './confirm.js';
import { withCore } from './core-client.js';

const say = (text: string): void => void process.stdout.write(text);
const esc = (text: string): string => escapeControl(text);

export function runUndo(argv: string[], dataDir: string): Promise<number> {
  return reported(() => runUndoNow(argv, dataDir));
}

async function runUndoNow(argv: string[], dataDir: string): Promise<number> {
  const args = parseArgs(argv, { values: ['client', 'session', 'server', 'since', 'hash'], booleans: ['list', 'json', 'yes', 'dry-run', 'confirm-conflicts'] });
  if (args.bools.has('list')) {
    const calls = await withCore(dataDir, (api) => api.listUndoable());
    if (args.bools.has('json')) say(JSON.stringify(calls, null, 2) + '\n');
    else printList(calls);
    return 0;
  }
  const target = targetOf(args.positional[0], {
    client: lastFlag(args, 'client'),
    session: lastFlag(args, 'session'),
    server: lastFlag(args, 'server'),
    since: lastFlag(args, 'since'),
  });
  const preview = await withCore(dataDir, (api) => api.previewUndo(target));
  if (args.bools.has('json')) say(JSON.stringify(preview, null, 2) + '\n');
  else printPreview(preview);
  if (args.bools.has('dry-run')) {
    say('Dry run: nothing was written.\n');
    return 0;
  }
  if (!preview.files.some((f) => f.action !== 'unchanged' && !f.blocked)) {
    say('Nothing to put back.\n');
    return 0;
  }
  const conflicts = preview.conflicts > 0;
  if (conflicts && args.bools.has('yes') && !args.bools.has('confirm-conflicts')) {
    throw new UsageError(`${preview.conflicts} file(s) changed since the call; add --confirm-conflicts to overwrite them with what was there before.`);
  }
  const given = lastFlag(args, 'hash');
  const question = conflicts ? `Put these files back, overwriting the ${preview.conflicts} changed since the call?` : 'Put these files back?';
  if (!(await consent(question, { yes: args.bools.has('yes'), bound: [{ flag: 'hash', printed: preview.hash, given }] }))) {
    say('Nothing was written.\n');
    return 1;
  }
  const result = await withCore(dataDir, (api) => api.undo(target, given ?? preview.hash, { confirmConflicts: conflicts }));
  for (const f of result.files) say(`${f.done ? 'done' : 'left'}  ${esc(f.path)}${f.error ? `: ${esc(f.error)}` : ''}\n`);
  say(`Undone. To undo this undo: countersign undo ${result.snapshot}\n`);
  return result.files.every((f) => f.done || f.action === 'unchanged') ? 0 : 1;
}

/** `<seq>`, or --client/--session/--server/--since; `--since 14:05` is today at 14:05 here. */
export function targetOf(positional: string | undefined, f: { client?: string; session?: string; server?: string; since?: string }): UndoTarget {
  if (positional !== undefined) {
    if (/^[0-9a-f]{16}$/.test(positional) && !/^\d+$/.test(positional)) return { snapshot: positional };
    if (!/^\d+$/.test(positional)) throw new UsageError(`'${positional}' is not a log entry number (see countersign undo --list)`);
    return { seq: Number(positional) };
  }
  if (f.client === undefined && f.session === undefined && f.server === undefined && f.since === undefined) {
    throw new UsageError('name what to undo: countersign undo <seq>, or --client <id> [--since <time>] (see countersign undo --list)');
  }
  return {
    ...(f.client !== undefined ? { client: f.client } : {}),
    ...(f.session !== undefined ? { session: f.session } : {}),
    ...(f.server !== undefined ? { server: f.server } : {}),
    ...(f.since !== undefined ? { since: sinceOf(f.since) } : {}),
  };
}

function sinceOf(text: string): string {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text);
  if (m) {
    const d = new Date();
    d.setHours(Number(m[1]), Number(m[2]), 0, 0);
    return d.toISOString();
  }
  if (Number.isNaN(Date.parse(text))) throw new UsageError(`--since '${text}' is not a time (14:05, or 2026-12-04T14:05:00Z)`);
  return new Date(text).toISOString();
}

function printList(calls: UndoableCall[]): void {
  if (!calls.length) say('No call can be undone (none changed files Countersign could tell, or they were pruned).\n');
  for (const c of calls) {
    const state = c.undoneBy ? `undone by ${c.undoneBy}` : c.partial ? 'partial' : 'undoable';
    const who = c.undoOf ? `undo of ${c.undoOf.length} call(s)` : `${esc(c.tool)} on ${esc(c.server)}${c.client ? ` by ${esc(c.client)}` : ''}`;
    say(`#${c.seq ?? '?'}  ${c.time}  ${who}  [${state}]  snapshot ${c.snapshot}\n`);
    for (const f of c.files) say(`      ${f.role}  ${esc(f.path)}\n`);
  }
}

function printPreview(p: UndoPreview): void {
  say(`Undo ${p.calls.length} call(s), newest first:\n`);
  for (const c of p.calls) say(`  #${c.seq ?? '?'} ${c.time} ${esc(c.tool)} on ${esc(c.server)}${c.session ? ` (session ${esc(c.session)})` : ''}\n`);
  say('Files:\n');
  for (const f of p.files) printFile(f);
  if (p.conflicts) say(`${p.conflicts} file(s) changed since the call: undo overwrites them only when you confirm.\n`);
  say(`  preview hash ${p.hash}\n`);
}

function printFile(f: UndoFilePlan): void {
  const what = {
    restore: `becomes ${describe(f.becomes)} again`,
    remove: 'is removed (it did not exist before)',
    'remove-folder': 'folder is removed (it did not exist before)',
    'create-folder': 'folder is made again',
    'move-back': `is moved back from ${esc(f.from ?? '')}`,
    unchanged: 'is already as it was',
  }[f.action];
  say(`  ${esc(f.path)} ${f.blocked ? `is left as it is: ${esc(f.blocked)}` : what}\n`);
  if (f.conflict) {
    say(`    CONFLICT: ${esc(f.conflict)}\n`);
    say(
      `      before the call: ${describe(f.becomes)}\n      after it:        ${f.after ? describe(f.after) : 'not seen'}\n      now:             ${describe(f.now)}\n`,
    );
  }
}

function describe(v: UndoVersion): string {
  const s = v.state;
  if (s.kind === 'missing') return 'nothing (no file)';
  if (s.kind === 'dir') return 'a folder';
  if (s.kind === 'other') return s.what;
  return `${formatBytes(s.size)}, mode ${s.mode.toString(8)}${s.hash ? `, sha256 ${s.hash.slice(0, 12)}` : ''}`;
}
