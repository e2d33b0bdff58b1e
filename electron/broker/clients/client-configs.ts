// The core of `clients`, `wrap` and `unwrap`, used by the Broker's API methods: finds each client's
// files, plans and applies a wrap (servers into Countersign, entries through `connect`), and undoes it.
// Every wrap and unwrap is audited, with env and header names only.
import fs from 'node:fs';
import path from 'node:path';
import type { Actor, ServerConfig } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { ClientScanOptions, ClientView, UnwrapPreview, UnwrapResult, WrapOptions, WrapPreview, WrapResult } from '../../../shared/clients.js';
import type { NewAuditEntry } from '../audit/audit-log.js';
import type { CliCommand } from '../core/cli-command.js';
import { monotonicMs } from '../core/clock.js';
import { resolveDataDir } from '../store/data-dir.js';
import { ClientBackups } from './backups.js';
import { CLIENTS, clientDef, locationsOf, type ClientDef, type Where } from './catalogue.js';
import { wrappedLaunch } from './countersign-entry.js';
import type { ScannedFile } from './detect.js';

type Work = typeof import('./config-work.js');
let workModule: Promise<Work> | undefined;
/** The parsers, planners and writers, loaded when a client's config is first looked at (config-work.ts). */
const loadWork = (): Promise<Work> => (workModule ??= import('./config-work.js'));

export interface ClientConfigsDeps {
  dataDir: string;
  where(): Where;
  /** The project folder scanned when a call names none (where `serve` started), if any. */
  defaultProject?(): string | undefined;
  /** Countersign's servers with their full launch (values included). */
  servers(): Record<string, ServerConfig>;
  /** Through the API of the surface that asked for the wrap, so each change is logged with its actor. */
  addServer(name: string, config: ServerConfig, actor: Actor): Promise<void>;
  removeServer(name: string, actor: Actor): Promise<void>;
  audit(entry: NewAuditEntry): void;
  /** Something about clients changed: tell the UIs. */
  changed(): void;
  command(): CliCommand;
  warn(text: string): void;
}

type Plan = ReturnType<ClientConfigs['planNow']>;

export class ClientConfigs {
  readonly backups: ClientBackups;
  private queue: Promise<unknown> = Promise.resolve();
  /** The last preview's plan: a confirmation of exactly it is carried out without planning again. */
  private previewed?: { key: string; readOnly: string; plan: Plan };

  constructor(private readonly deps: ClientConfigsDeps) {
    this.backups = new ClientBackups(deps.dataDir, deps.warn);
  }

  /** Whose home, which OS: where client configs are looked for. */
  where(): Where {
    return this.deps.where();
  }

  /** One wrap or unwrap at a time: each plans from the files as the last one left them. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private projects(opts: ClientScanOptions | undefined): string[] {
    const dir = opts?.project ?? this.deps.defaultProject?.();
    if (dir === undefined) return [];
    const { platform } = this.deps.where();
    const p = platform === 'win32' ? path.win32 : path.posix;
    if (!p.isAbsolute(dir)) throw new Error(`The project folder must be an absolute path, not '${dir}'.`);
    return [p.normalize(dir)];
  }

  private scan(work: Work, def: ClientDef, opts: ClientScanOptions | undefined): ScannedFile[] {
    const where = this.deps.where();
    return locationsOf(def, where, this.projects(opts)).map((loc) => work.scanFile(loc, where));
  }

  /** --data-dir for client entries, unless this is the folder `connect` finds without being told. */
  private dataDirArgs(): string[] {
    const { home, platform, env } = this.deps.where();
    const bare = resolveDataDir({ env: platform === 'win32' ? { APPDATA: env.APPDATA } : {}, platform, home });
    return path.resolve(bare) === path.resolve(this.deps.dataDir) ? [] : ['--data-dir', this.deps.dataDir];
  }

  private ours = (dataDir: string | undefined): boolean =>
    dataDir === undefined ? this.dataDirArgs().length === 0 : path.resolve(dataDir) === path.resolve(this.deps.dataDir);

  async listClients(opts?: ClientScanOptions): Promise<ClientView[]> {
    const work = await loadWork();
    const servers = new Set(Object.keys(this.deps.servers()));
    return CLIENTS.map((def) => {
      const files = this.scan(work, def, opts);
      const found = files.filter((f) => f.exists);
      const wrappedAt = (f: ScannedFile) => this.backups.active(f.realPath)[0]?.time;
      return {
        id: def.id,
        name: def.name,
        found: found.length > 0,
        files: found.map((f) => work.fileView(f, { servers, ours: this.ours, wrappedAt })),
        looked: files.map((f) => f.location.path),
        canUnwrap: found.some((f) => wrappedAt(f) !== undefined),
      };
    });
  }

  private planNow(work: Work, client: string, opts: WrapOptions) {
    const def = requireClient(client);
    const files = this.scan(work, def, opts);
    if (!files.some((f) => f.exists))
      throw new Error(`No ${def.name} config file was found. Countersign looked in: ${files.map((f) => f.location.path).join(', ')}.`);
    const names = new Set(files.flatMap((f) => f.entries.map((e) => e.name)));
    const unknown = (opts.only ?? []).filter((n) => !names.has(n));
    if (unknown.length)
      throw new Error(`${def.name}'s config has no server named ${unknown.map((n) => `'${n}'`).join(', ')}. Its servers: ${[...names].join(', ') || 'none'}.`);
    const dataDirArgs = this.dataDirArgs();
    const command = this.deps.command();
    const plan = work.planWrap({
      client: def.id,
      files,
      servers: this.deps.servers(),
      only: opts.only,
      launch: (server) => wrappedLaunch(command, server, def.id, dataDirArgs),
      ours: this.ours,
    });
    return { def, ...plan };
  }

  /**
   * What a plan depends on besides its files' bytes: the client, the options, Countersign's servers and
   * command, and which files there are. With those and every file's bytes the same, the plan is too;
   * `readOnly` is which of them the person made read-only (a preview shows it; the write checks again).
   */
  private planKey(work: Work, client: string, opts: WrapOptions): { key: string; readOnly: string } {
    const def = requireClient(client);
    const where = this.deps.where();
    const locations = locationsOf(def, where, this.projects(opts));
    const files = locations.map((l) => {
      try {
        return [l.path, work.sha256(fs.readFileSync(l.path))];
      } catch (err) {
        return [l.path, (err as NodeJS.ErrnoException).code ?? 'unreadable'];
      }
    });
    const key = work.sha256(
      canonicalJson({ client, only: opts.only ?? null, files, servers: this.deps.servers(), command: this.deps.command(), dataDir: this.dataDirArgs() }),
    );
    return { key, readOnly: canonicalJson(locations.map((l) => work.readOnlyReason(l.path) ?? null)) };
  }

  /**
   * Plans a wrap, once: the plan a preview made is reused when nothing it depends on changed (for a
   * confirmation, whatever the files' modes: the write refuses a file made read-only since).
   */
  private plan(work: Work, client: string, opts: WrapOptions, confirming = false): Plan {
    const { key, readOnly } = this.planKey(work, client, opts);
    const last = this.previewed;
    if (last?.key === key && (confirming || last.readOnly === readOnly)) return last.plan;
    const plan = this.planNow(work, client, opts);
    this.previewed = { key, readOnly, plan };
    return plan;
  }

  async previewWrap(client: string, opts: WrapOptions = {}): Promise<WrapPreview> {
    const { def, files, changes, planHash } = this.plan(await loadWork(), client, opts);
    return { client: def.id, files: files.map((f) => f.view), changes, planHash };
  }

  wrapClient(client: string, opts: WrapOptions, planHash: string, actor: Actor): Promise<WrapResult> {
    return this.serial(async () => {
      const work = await loadWork();
      const plan = this.plan(work, client, opts, true);
      this.previewed = undefined;
      if (plan.planHash !== planHash) {
        throw new Error(
          "The client's config or Countersign's servers changed since the preview, so nothing was written. Look at the new preview and confirm again.",
        );
      }
      return work.applyWrap(plan, {
        backups: this.backups,
        addServer: (name, config) => this.deps.addServer(name, config, actor),
        removeServer: (name) => this.deps.removeServer(name, actor),
        audit: (entry) => this.deps.audit({ ...entry, actor }),
        changed: () => this.deps.changed(),
      });
    });
  }

  private unwrapPlan(work: Work, client: string, opts: ClientScanOptions) {
    const def = requireClient(client);
    const files = this.scan(work, def, opts)
      .map((file) => ({ file, records: this.backups.active(file.realPath) }))
      .filter((f) => f.records.length)
      .map((f) => work.planUnwrap(f.file, f.records, this.backups));
    const planHash = work.sha256(
      canonicalJson(
        files.map((f) => ({
          path: f.file.realPath,
          before: f.file.hash ?? null,
          after: f.after === undefined ? null : work.sha256(f.after),
          records: f.records.map((r) => r.id),
        })),
      ),
    );
    return { def, files, planHash };
  }

  async previewUnwrap(client: string, opts: ClientScanOptions = {}): Promise<UnwrapPreview> {
    const { def, files, planHash } = this.unwrapPlan(await loadWork(), client, opts);
    return { client: def.id, files: files.map((f) => f.view), planHash };
  }

  unwrapClient(client: string, opts: ClientScanOptions, planHash: string | undefined, actor: Actor): Promise<UnwrapResult> {
    return this.serial(async () => {
      const work = await loadWork();
      const started = monotonicMs();
      const { def, files, planHash: now } = this.unwrapPlan(work, client, opts);
      if (planHash !== undefined && planHash !== now) {
        throw new Error("The client's config changed since the preview, so nothing was written. Look at the new preview and confirm again.");
      }
      if (!files.length) return { client: def.id, files: [], servers: [] };
      const out: UnwrapResult = {
        client: def.id,
        files: [],
        servers: [...new Set(files.flatMap((f) => f.records.flatMap((r) => r.entries.map((e) => e.server))))],
      };
      const audit = (detail: string, status?: 'failed') =>
        this.deps.audit({
          actor,
          ...work.wrapAudit(
            'unwrap',
            def,
            started,
            {
              files: out.files.map((f) => ({ path: f.path, how: f.how, backup: f.backup })),
              entries: out.files.flatMap((f) => f.entries),
            },
            detail,
            status,
          ),
        });
      try {
        for (const f of files) {
          let backup: string | undefined;
          if (f.after !== undefined && f.file.text !== undefined && f.after.toString() !== f.file.text) {
            // Their file as it is now, edits included, is kept before anything is written over it.
            backup = this.backups.keep(def.id, f.file.realPath, Buffer.from(f.file.text, 'utf8'), 'before-unwrap');
            work.replaceConfig(f.file.realPath, f.file.hash, f.after, f.file.mode);
          }
          if (f.view.how !== 'missing')
            this.backups.markUnwrapped(
              f.records.map((r) => r.id),
              new Date().toISOString(),
            );
          out.files.push({ ...f.view, ...(backup && { backup: this.backups.pathOf(backup) }) });
        }
      } catch (err) {
        audit(`Unwrapping ${def.name} failed: ${(err as Error).message}`, 'failed');
        this.deps.changed();
        throw err;
      }
      audit(
        `Unwrapped ${def.name}: ${out.files.flatMap((f) => f.entries.filter((e) => e.outcome === 'restored').map((e) => e.entry)).join(', ') || 'nothing to restore'}`,
      );
      this.deps.changed();
      return out;
    });
  }
}

function requireClient(id: string): ClientDef {
  const def = clientDef(id);
  if (!def) throw new Error(`Countersign does not know a client called '${id}'. Known clients: ${CLIENTS.map((c) => c.id).join(', ')}.`);
  return def;
}
