// Carries out a wrap plan: backs up each file, adds the new servers to Countersign (untrusted, their
// launch waiting for consent), then writes each file atomically. If any step fails, the files already
// written get their old bytes back and the servers just added are removed; the failure is audited too.
import { randomUUID } from 'node:crypto';
import type { ServerConfig } from '../../../shared/api.js';
import type { WrapResult } from '../../../shared/clients.js';
import type { NewAuditEntry } from '../audit/audit-log.js';
import { elapsedMs, monotonicMs } from '../core/clock.js';
import type { ClientBackups, WrapRecord } from './backups.js';
import type { ClientDef } from './catalogue.js';
import { applyChangeToValue } from './config-format.js';
import { sha256 } from './detect.js';
import type { PlannedFile } from './plan.js';
import { replaceConfig } from './write-config.js';

export interface WrapPlan {
  def: ClientDef;
  files: PlannedFile[];
  changes: number;
}

export interface WrapDeps {
  backups: ClientBackups;
  addServer(name: string, config: ServerConfig): Promise<void>;
  removeServer(name: string): Promise<void>;
  audit(entry: NewAuditEntry): void;
  changed(): void;
}

export async function applyWrap(plan: WrapPlan, deps: WrapDeps): Promise<WrapResult> {
  const { def } = plan;
  const started = monotonicMs();
  const result: WrapResult = { client: def.id, files: [], added: [], reused: [] };
  const changing = plan.files.filter((f) => f.entries.some((e) => e.change));
  if (!changing.length) return result;
  const records: WrapRecord[] = [];
  const written: Array<{ file: PlannedFile; before: string }> = [];
  try {
    for (const f of changing) records.push(record(def, f, deps.backups));
    for (const f of changing) {
      for (const e of f.entries) {
        const server = e.plan.server;
        if (!server || !e.config) continue;
        if (e.plan.action === 'add' && !result.added.includes(server)) {
          await deps.addServer(server, e.config);
          result.added.push(server);
        } else if (e.plan.action === 'reuse' && !result.reused.includes(server) && !result.added.includes(server)) result.reused.push(server);
      }
    }
    for (const [i, f] of changing.entries())
      records[i]!.added = result.added.filter((s) => f.entries.some((e) => e.plan.server === s && e.plan.action === 'add'));
    for (const r of records) deps.backups.add(r);
    for (const [i, f] of changing.entries()) {
      replaceConfig(f.file.realPath, f.file.hash, f.after, f.file.mode);
      written.push({ file: f, before: f.file.text ?? '' });
      result.files.push({
        path: f.file.location.path,
        backup: deps.backups.pathOf(records[i]!.backup),
        wrapped: f.entries.filter((e) => e.change).map((e) => e.entry.name),
      });
    }
  } catch (err) {
    await rollBack(written, records, result.added, deps).catch(() => undefined);
    deps.audit(wrapAudit('wrap', def, started, details(plan), `Wrapping ${def.name} failed, and was rolled back: ${(err as Error).message}`, 'failed'));
    deps.changed();
    throw err;
  }
  deps.audit(wrapAudit('wrap', def, started, details(plan), `Wrapped ${def.name}: ${result.files.flatMap((f) => f.wrapped).join(', ')}`));
  deps.changed();
  return result;
}

function record(def: ClientDef, f: PlannedFile, backups: ClientBackups): WrapRecord {
  const { file } = f;
  const before = file.text ?? '';
  return {
    id: randomUUID(),
    client: def.id,
    path: file.location.path,
    realPath: file.realPath,
    time: new Date().toISOString(),
    backup: backups.keep(def.id, file.realPath, Buffer.from(before, 'utf8'), 'before-wrap'),
    hashBefore: file.hash ?? '',
    hashAfter: sha256(f.after),
    entries: f.entries
      .filter((e) => e.change)
      .map((e) => ({
        key: e.entry.key,
        name: e.entry.name,
        ...(e.entry.group && { group: e.entry.group }),
        server: e.plan.server!,
        originalValue: e.entry.value,
        wrappedValue: applyChangeToValue(e.entry.value as Record<string, unknown>, e.change!),
        originalText: before.slice(...e.entry.span),
        wrappedText: e.text,
      })),
    added: [],
  };
}

/**
 * Puts back every file already written, then drops the records and backups of the files that are as
 * they were (no orphan backup stays). A file that could not be put back keeps its record and backup,
 * so unwrap can restore it.
 */
async function rollBack(written: Array<{ file: PlannedFile; before: string }>, records: WrapRecord[], added: string[], deps: WrapDeps): Promise<void> {
  const stuck = new Set<string>();
  for (const w of written.reverse()) {
    try {
      replaceConfig(w.file.file.realPath, sha256(w.file.after), w.before, w.file.file.mode);
    } catch {
      stuck.add(w.file.file.realPath);
    }
  }
  for (const r of records) {
    if (stuck.has(r.realPath)) continue;
    deps.backups.remove(r.id);
    deps.backups.discard(r.backup);
  }
  for (const name of added) await deps.removeServer(name).catch(() => undefined);
}

/** What the audit shows of a wrap: commands and URLs, env and header names, never their values. */
function details(plan: WrapPlan): Record<string, unknown> {
  return {
    files: plan.files.map((f) => f.file.location.path),
    servers: plan.files.flatMap((f) =>
      f.entries
        .filter((e) => e.change)
        .map((e) => {
          const c = e.config;
          const launch = !c
            ? {}
            : 'url' in c
              ? { url: c.url, headerNames: Object.keys(c.headers ?? {}) }
              : { commandLine: [c.command, ...(c.args ?? [])], cwd: c.cwd, envNames: Object.keys(c.env ?? {}) };
          return { entry: e.entry.name, group: e.entry.group, action: e.plan.action, server: e.plan.server, ...launch };
        }),
    ),
  };
}

/** `started`: a monotonicMs() reading (core/clock.ts) taken when the change began. */
export function wrapAudit(
  tool: 'wrap' | 'unwrap',
  def: ClientDef,
  started: number,
  args: Record<string, unknown>,
  detail: string,
  status: 'ok' | 'failed' = 'ok',
): NewAuditEntry {
  return {
    kind: 'client',
    time: new Date().toISOString(),
    server: def.id,
    tool,
    arguments: { client: def.id, ...args },
    decision: 'allow',
    decidedBy: 'person',
    reasons: [],
    durationMs: elapsedMs(started),
    status,
    detail,
  };
}
