// Plans a wrap: for each entry of a client's files, what happens (add to Countersign, reuse, already
// done, refused and why), each changed entry's new text, the file's new text (those entries spliced in,
// every other byte kept) with a diff of the entries alone, and one hash of all of it.
import type { ServerConfig } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { ClientId, FilePlan, WrapEntryPlan } from '../../../shared/clients.js';
import { launchHash } from '../trust/launch-consent.js';
import type { EntryChange } from './config-format.js';
import type { ScannedEntry, ScannedFile } from './detect.js';
import { sha256 } from './detect.js';
import type { Dialect } from './dialects.js';
import { diffOfEdits, lineEndsOf, splice, type Edit } from './edits.js';
import type { Interpreted } from './entry.js';
import { chooseName } from './naming.js';
import { fillEnvEntries } from '../trust/launch-fill.js';

export interface PlannedEntry {
  entry: ScannedEntry;
  plan: WrapEntryPlan;
  /** The launch Countersign stores (add) or already has (reuse). */
  config?: ServerConfig;
  change?: EntryChange;
  /** The entry's text after the change. */
  text?: string;
}

export interface PlannedFile {
  file: ScannedFile;
  entries: PlannedEntry[];
  after: string;
  view: FilePlan;
}

export interface PlanInput {
  client: ClientId;
  files: ScannedFile[];
  /** Countersign's servers, with their full launch. */
  servers: Record<string, ServerConfig>;
  only?: string[];
  /** The entry's new command and args, for a Countersign server name. */
  launch(server: string): { command: string; args: string[] };
  /** Whether a wrapped entry's --data-dir (or none) names this Countersign's data folder. */
  ours(dataDir: string | undefined): boolean;
}

export function planWrap(input: PlanInput): { files: PlannedFile[]; changes: number; planHash: string } {
  const taken = new Map(Object.entries(input.servers).map(([name, config]) => [name, launchHash(config)]));
  const files = input.files.filter((f) => f.exists).map((file) => planFile(file, input, taken));
  const changes = files.reduce((n, f) => n + f.entries.filter((e) => e.change).length, 0);
  const planHash = sha256(
    canonicalJson({
      client: input.client,
      files: files.map((f) => ({ path: f.file.realPath, before: f.file.hash ?? null, after: sha256(f.after) })),
      entries: files.flatMap((f) => f.entries.map((e) => ({ ...e.plan, launch: e.config ? launchHash(e.config) : null }))),
    }),
  );
  return { files, changes, planHash };
}

function planFile(file: ScannedFile, input: PlanInput, taken: Map<string, string>): PlannedFile {
  const dialect = file.location.client.dialect;
  const entries: PlannedEntry[] = [];
  const edits: Edit[] = [];
  const text = file.text ?? '';
  for (const entry of file.entries) {
    const planned = planEntry(entry, input, taken, dialect);
    if (planned.change && file.readOnly) {
      planned.plan = { ...planned.plan, action: 'refuse', server: undefined, note: undefined, reason: 'its file is read-only (see above)' };
      planned.change = undefined;
      planned.config = undefined;
    }
    if (planned.change) {
      try {
        planned.text = file.format.editEntry(file.doc!, entry, planned.change, dialect);
        const shownFills = new Set(Object.values(fillEntries(planned.config)).map((v) => JSON.stringify(v)));
        const secrets = file.format.entrySecrets(planned.text, dialect).filter(([s, e]) => !shownFills.has(planned.text!.slice(s, e)));
        edits.push({ start: entry.span[0], end: entry.span[1], text: planned.text, secrets });
      } catch (err) {
        planned.plan = { ...planned.plan, action: 'refuse', server: undefined, note: undefined, reason: (err as Error).message };
        planned.change = undefined;
        planned.config = undefined;
      }
    }
    if (planned.plan.action === 'add' && planned.plan.server && planned.config) taken.set(planned.plan.server, launchHash(planned.config));
    entries.push(planned);
  }
  const { error, readOnly } = file;
  const lineEnds = lineEndsOf(text);
  const view: FilePlan = {
    path: file.location.path,
    scope: file.location.scope,
    ...(error && { error }),
    ...(readOnly && !error && { readOnly: `Countersign will not replace this file: ${readOnly}.` }),
    diff: error ? '' : diffOfEdits(file.location.path, text, edits, secretsOf(file)),
    ...(lineEnds && { lineEnds }),
    entries: error ? [] : entries.map((e) => e.plan),
  };
  return { file, entries: error ? [] : entries, after: error ? text : splice(text, edits), view };
}

/** Where env and header values are in the file as it is: every entry's, so no context line shows one. */
export function secretsOf(file: ScannedFile): Array<[number, number]> {
  const dialect = file.location.client.dialect;
  return file.entries.flatMap((e) =>
    file.format.entrySecrets((file.text ?? '').slice(...e.span), dialect).map(([s, f]): [number, number] => [s + e.span[0], f + e.span[0]]),
  );
}

function planEntry(entry: ScannedEntry, input: PlanInput, taken: ReadonlyMap<string, string>, dialect: Dialect): PlannedEntry {
  const base = { entry: entry.name, ...(entry.group && { group: entry.group }) };
  const m = entry.meaning;
  if (input.only && !input.only.includes(entry.name)) return { entry, plan: { ...base, action: 'skip' } };
  if (m.through) {
    const ref = m.through;
    if (ref.viaRegistry && input.ours(ref.dataDir)) {
      return {
        entry,
        plan: {
          ...base,
          action: 'update',
          server: ref.server,
          note: 'started with npx countersign, which a package registry resolves: rewritten to the absolute command',
        },
        change: { set: launchKeys(m, input.launch(ref.server)), remove: [] },
      };
    }
    return { entry, plan: { ...base, action: 'already', server: ref.server } };
  }
  if (!m.config) return { entry, plan: { ...base, action: 'refuse', reason: m.problem ?? 'it cannot be started by Countersign' } };
  const chosen = chooseName(entry.name, m.config, input.client, taken);
  const raw = entry.value as Record<string, unknown>;
  const set = launchKeys(m, input.launch(chosen.name));
  if ('type' in raw && !dialect.stdioTypes.includes(raw.type as string)) set.push(['type', dialect.stdioTypes[0]]);
  // The placeholders the client fills at launch go to `connect` in its env, which the client expands.
  const fills = fillEntries(m.config);
  if (Object.keys(fills).length) set.push([dialect.env, fills]);
  const moved = m.moved.filter((k) => !set.some(([s]) => s === k));
  for (const k of moved.filter((k) => dialect.keepEmpty?.includes(k))) set.push([k, {}]);
  const passed = 'limits' in m.config && m.config.limits ? m.config.limits.passEnv : [];
  const declared = 'fills' in m.config ? (m.config.fills ?? []) : [];
  const notes = [
    chosen.note,
    passed.length ? `passes ${passed.join(', ')} from Countersign's environment when it starts the server (the client filled it in from its own)` : undefined,
    declared.length
      ? `${declared.map((n) => `\${${n}}`).join(', ')} ${declared.length === 1 ? 'is' : 'are'} still filled in by the client when it starts the server; each new value of the command line waits for your approval`
      : undefined,
  ].filter(Boolean);
  return {
    entry,
    config: m.config,
    plan: { ...base, action: chosen.reuse ? 'reuse' : 'add', server: chosen.name, ...(notes.length && { note: notes.join('; ') }) },
    change: { set, remove: moved.filter((k) => !dialect.keepEmpty?.includes(k)) },
  };
}

/** The env entries that carry the client's values of the launch's placeholders to `connect`. */
function fillEntries(config: ServerConfig | undefined): Record<string, string> {
  return config && 'fills' in config && config.fills ? fillEnvEntries(config.fills) : {};
}

/** The keys of the new launch, written the way the entry wrote its own. */
function launchKeys(m: Interpreted, launch: { command: string; args: string[] }): Array<[string, unknown]> {
  switch (m.form) {
    case 'cmd':
      return [
        ['cmd', launch.command],
        ['args', launch.args],
      ];
    case 'command-array':
      return [['command', [launch.command, ...launch.args]]];
    case 'zed-object':
      return [['command', { path: launch.command, args: launch.args }]];
    default:
      return [
        ['command', launch.command],
        ['args', launch.args],
      ];
  }
}
