// Plans a wrap: for each entry of a client's files, what happens (add to Countersign, reuse, already
// done, refused and why), the rewritten text of each file with its diff, and one hash of all of it.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { ServerConfig } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { ClientId, FilePlan, WrapEntryPlan } from '../../../shared/clients.js';
import { launchHash } from '../trust/launch-consent.js';
import { applyChangeToValue, maskRanges, verifyEdit, type ConfigFormat, type EntryChange } from './config-format.js';
import type { ScannedEntry, ScannedFile } from './detect.js';
import { sha256 } from './detect.js';
import { chooseName } from './naming.js';

export interface PlannedEntry {
  entry: ScannedEntry;
  plan: WrapEntryPlan;
  /** The launch Countersign stores (add) or already has (reuse). */
  config?: ServerConfig;
  change?: EntryChange;
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

const MASK = '"••••"';

export function planWrap(input: PlanInput): { files: PlannedFile[]; changes: number; planHash: string } {
  const taken = new Map(Object.entries(input.servers).map(([name, config]) => [name, launchHash(config)]));
  const files = input.files.filter((f) => f.exists).map((file) => planFile(file, input, taken));
  const changes = files.reduce((n, f) => n + f.entries.filter((e) => e.change).length, 0);
  const planHash = sha256(canonicalJson({
    client: input.client,
    files: files.map((f) => ({ path: f.file.realPath, before: f.file.hash ?? null, after: sha256(f.after) })),
    entries: files.flatMap((f) => f.entries.map((e) => ({ ...e.plan, launch: e.config ? launchHash(e.config) : null }))),
  }));
  return { files, changes, planHash };
}

function planFile(file: ScannedFile, input: PlanInput, taken: Map<string, string>): PlannedFile {
  const entries: PlannedEntry[] = [];
  let text = file.text ?? '';
  for (const entry of file.entries) {
    const planned = planEntry(entry, input, taken);
    if (planned.change) {
      try {
        const next = file.format.changeEntry(text, entry.key, planned.change);
        verifyEdit(file.format, text, next, entry.key, applyChangeToValue(entry.value as Record<string, unknown>, planned.change));
        text = next;
      } catch (err) {
        planned.plan = { ...planned.plan, action: 'refuse', server: undefined, note: undefined, reason: (err as Error).message };
        planned.change = undefined;
        planned.config = undefined;
      }
    }
    if (planned.plan.action === 'add' && planned.plan.server && planned.config) taken.set(planned.plan.server, launchHash(planned.config));
    entries.push(planned);
  }
  const error = file.error;
  const view: FilePlan = {
    path: file.location.path,
    scope: file.location.scope,
    ...(error && { error }),
    diff: error ? '' : diffOf(file.format, file.location.path, file.text ?? '', text),
    entries: error ? [] : entries.map((e) => e.plan),
  };
  return { file, entries: error ? [] : entries, after: error ? file.text ?? '' : text, view };
}

function planEntry(entry: ScannedEntry, input: PlanInput, taken: ReadonlyMap<string, string>): PlannedEntry {
  const base = { entry: entry.name, ...(entry.group && { group: entry.group }) };
  const m = entry.meaning;
  if (input.only && !input.only.includes(entry.name)) return { entry, plan: { ...base, action: 'skip' } };
  if (m.through) {
    const ref = m.through;
    if (ref.viaRegistry && input.ours(ref.dataDir)) {
      const launch = input.launch(ref.server);
      return {
        entry,
        plan: { ...base, action: 'update', server: ref.server, note: 'started with npx countersign, which a package registry resolves: rewritten to the absolute command' },
        change: { set: [['command', launch.command], ['args', launch.args]], remove: [] },
      };
    }
    return { entry, plan: { ...base, action: 'already', server: ref.server } };
  }
  if (!m.config) return { entry, plan: { ...base, action: 'refuse', reason: m.problem ?? 'it cannot be started by Countersign' } };
  const chosen = chooseName(entry.name, m.config, input.client, taken);
  const launch = input.launch(chosen.name);
  const raw = entry.value as Record<string, unknown>;
  const set: Array<[string, unknown]> = [['command', launch.command], ['args', launch.args]];
  if ('type' in raw) set.push(['type', 'stdio']);
  return {
    entry,
    config: m.config,
    plan: { ...base, action: chosen.reuse ? 'reuse' : 'add', server: chosen.name, ...(chosen.note && { note: chosen.note }) },
    change: { set, remove: m.moved },
  };
}

/** A unified diff of the file, with env and header values masked on both sides. */
export function diffOf(format: ConfigFormat, path: string, before: string, after: string): string {
  if (before === after) return '';
  const shown = (text: string) => maskRanges(text, format.secretRanges(text), MASK);
  return createTwoFilesPatch(path, path, shown(before), shown(after), 'before', 'after', { context: 3, headerOptions: FILE_HEADERS_ONLY });
}
