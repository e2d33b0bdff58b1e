// Servers, trust, rules and settings: settings.json in the data dir, through the one store file kind
// (store/json-file.ts: zod schema, migration, atomic write, move-aside). The schemas are the shared ones.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { ServerConfig, Settings, SettingsPatch } from '../../../shared/api.js';
import type { Rule } from '../../../shared/decision.js';
import { remoteConfigSchema, serverConfigSchema, serverNameSchema, settingsSchema, stdioConfigSchema } from '../../../shared/config-schema.js';
import { storedRuleSchema } from '../../../shared/api-schema.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import { JsonFile } from './json-file.js';
import { ruleHash, type GrantSeal } from './grant-seal.js';
import { launchHash } from '../trust/launch-consent.js';

export class SettingsError extends Error {
  override name = 'SettingsError';
}

const DEFAULT_SETTINGS: Settings = { approvalTimeoutSeconds: 120, upstreamTimeoutSeconds: 300, theme: 'system' };

// ---- validation -------------------------------------------------------------------------------

export function validateServerName(name: string): string | undefined {
  if (!serverNameSchema.safeParse(name).success) {
    return 'Server names are 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit.';
  }
  return undefined;
}

export function parseServerConfig(value: unknown): ServerConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SettingsError('A server config must be an object.');
  }
  const hasCommand = 'command' in value;
  if (hasCommand === 'url' in value) {
    throw new SettingsError('A server config needs exactly one of `command` (local server) or `url` (remote server).');
  }
  const result = (hasCommand ? stdioConfigSchema : remoteConfigSchema).safeParse(value);
  if (!result.success) throw new SettingsError(`Invalid server config: ${describe(result.error)}`);
  return result.data;
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

// ---- the file --------------------------------------------------------------------------------

const fileSchema = z
  .object({
    schemaVersion: z.literal(1),
    servers: z.record(serverNameSchema, serverConfigSchema),
    trusted: z.record(z.boolean()),
    rules: z.array(storedRuleSchema),
    settings: settingsSchema,
  })
  .strict();

type SettingsData = z.infer<typeof fileSchema>;

const EMPTY: SettingsData = Object.freeze({ schemaVersion: 1, servers: {}, trusted: {}, rules: [], settings: DEFAULT_SETTINGS });

/**
 * Files written before this format (and by conf, which kept its own `__internal__` record of the
 * migrations it ran): the missing parts are filled in with safe defaults (no trust, no rules).
 * Wrong-typed values are kept, so the schema check moves the file aside rather than dropping data.
 */
export function migrateSettings(raw: unknown): unknown {
  if (!isPlainObject(raw)) throw new SettingsError('it does not hold a JSON object');
  const { __internal__: _conf, ...data } = raw;
  const settings = isPlainObject(data.settings) ? { ...DEFAULT_SETTINGS, ...data.settings } : (data.settings ?? { ...DEFAULT_SETTINGS });
  const next = { schemaVersion: 1, servers: {}, trusted: {}, rules: [], ...data, settings };
  if (!Object.hasOwn(data, 'schemaVersion')) next.schemaVersion = 1;
  // Unchanged (compared whatever the key order): the file is current and is not rewritten.
  const same = canonicalJson(next) === canonicalJson(raw);
  return same ? raw : next;
}

/** What a scoped or expiring rule adds to the plain one (session rules are never written). */
export type RuleExtra = Partial<Pick<Rule, 'scope' | 'expiresAt' | 'coversExfiltration' | 'definitionHash'>>;

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// ---- the store ---------------------------------------------------------------------------------

export class SettingsStore {
  readonly path: string;
  readonly #file: JsonFile<SettingsData>;
  readonly #listeners = new Set<(warning: string) => void>();
  /** Where warnings go: the list open() returns, then the listeners. */
  #warn: (warning: string) => void;
  /** The file version the sealed grants were last pruned against. */
  #prunedFor?: SettingsData;
  /** Trust and rules take effect only when sealed too (a hand edit cannot add them). */
  readonly #seal?: GrantSeal;

  static open(opts: { dataDir: string; seal?: GrantSeal }): { store: SettingsStore; warnings: string[] } {
    const warnings: string[] = [];
    const store = new SettingsStore(opts.dataDir, (w) => warnings.push(w), opts.seal);
    return { store, warnings };
  }

  private constructor(dataDir: string, warn: (warning: string) => void, seal?: GrantSeal) {
    this.#seal = seal;
    this.#warn = warn;
    this.path = path.join(path.resolve(dataDir), 'settings.json');
    this.#file = new JsonFile<SettingsData>({
      path: this.path,
      schema: fileSchema,
      empty: () => EMPTY,
      migrate: migrateSettings,
      warn: (w) => this.#warn(w),
      lost: (reason, moved, stuck) =>
        `Settings file ${this.path} could not be read (${reason}); ` +
        (moved
          ? `it was moved to ${moved}. `
          : stuck
            ? 'it could not be moved aside, so it is ignored and nothing is saved until it is moved away. '
            : 'another Countersign process has moved it aside. ') +
        'Countersign started with safe defaults: no server is trusted.',
    });
    // On disk in this format from the start (an older one is migrated once); a read-only folder
    // does not stop the start: the defaults are used and the first change reports the disk.
    try {
      this.#file.settle();
    } catch {
      // nothing lost: the file stays as it was
    }
    this.#read();
    this.#warn = (w) => this.#emit(w);
    this.#file.recheck();
  }

  /** Problems found after open (a file corrupted while running). Returns the unsubscribe function. */
  onWarning(listener: (warning: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  listServers(): Record<string, ServerConfig> {
    return this.#read().servers;
  }

  getServer(name: string): ServerConfig | undefined {
    const { servers } = this.#read();
    return Object.hasOwn(servers, name) ? servers[name] : undefined;
  }

  addServer(name: string, config: ServerConfig): void {
    const problem = validateServerName(name);
    if (problem) throw new SettingsError(problem);
    const parsed = parseServerConfig(config);
    const data = this.#read();
    if (Object.hasOwn(data.servers, name)) throw new SettingsError(`A server named "${name}" already exists.`);
    // A new server starts untrusted even if stale trust or rules for its name were left in the file.
    this.#forget(data, name);
    this.#set('servers', { ...data.servers, [name]: parsed });
  }

  /** Replaces a server's launch config, keeping its trust and rules (used when pinning rewrites it). */
  updateServerConfig(name: string, config: ServerConfig): void {
    const parsed = parseServerConfig(config);
    const data = this.#read();
    this.#requireServer(data, name);
    // The API's own rewrite (a pin): trust granted to the old command carries over to the new one.
    const before = data.servers[name]!;
    if (this.#seal && this.#seal.trust(name) === launchHash(before)) this.#seal.update((g) => (g.trust[name] = launchHash(parsed)));
    this.#set('servers', { ...data.servers, [name]: parsed });
  }

  removeServer(name: string): void {
    const data = this.#read();
    this.#requireServer(data, name);
    // Trust and rules go first: a crash in between leaves a server with less trust, never more.
    this.#forget(data, name);
    this.#set('servers', without(data.servers, name));
  }

  /** Trusted in the file and (with a seal) sealed for the command it has now. */
  isTrusted(name: string): boolean {
    const data = this.#read();
    if (!this.#trustedInFile(data, name)) return false;
    return !this.#seal || this.#seal.trust(name) === this.#launchHashOf(data.servers[name]!);
  }

  // Asked on every call: a config read from the file is never changed in place (every change writes a
  // new snapshot), so its launch hash is computed once per snapshot.
  readonly #launchHashes = new WeakMap<ServerConfig, string>();
  #launchHashOf(config: ServerConfig): string {
    let hash = this.#launchHashes.get(config);
    if (hash === undefined) this.#launchHashes.set(config, (hash = launchHash(config)));
    return hash;
  }

  /** What the file says, sealed or not (for listing hand-made grants). */
  trustedInFile(): string[] {
    const data = this.#read();
    return Object.keys(data.servers).filter((name) => this.#trustedInFile(data, name));
  }

  #trustedInFile(data: SettingsData, name: string): boolean {
    return Object.hasOwn(data.servers, name) && Object.hasOwn(data.trusted, name) && data.trusted[name] === true;
  }

  setTrusted(name: string, trusted: boolean): void {
    const data = this.#read();
    this.#requireServer(data, name);
    if (!trusted) {
      // Taking trust away applies at once, whatever the seal can do.
      this.#set('trusted', without(data.trusted, name));
      this.#seal?.withdraw((g) => delete g.trust[name]);
      return;
    }
    // Sealed first: a failed seal leaves the file as it was, and a crash between leaves a grant that
    // is sealed but not in the file, which grants nothing.
    this.#seal?.update((g) => (g.trust[name] = launchHash(data.servers[name]!)));
    this.#set('trusted', { ...data.trusted, [name]: true });
  }

  /** The rules in effect: with a seal, only the sealed ones. */
  listRules(): Rule[] {
    const { rules } = this.#read();
    const seal = this.#seal;
    return seal ? rules.filter((r) => seal.hasRule(ruleHash(r))) : rules;
  }

  /** Every rule the file holds, sealed or not. */
  rulesInFile(): Rule[] {
    return this.#read().rules;
  }

  /** Saves a rule; the same rule saved twice is kept once. Expired rules are dropped on the way. */
  addRule(server: string, tool: string, extra: RuleExtra = {}): Rule {
    const data = this.#read();
    this.#requireServer(data, server);
    if (typeof tool !== 'string' || tool.length === 0) throw new SettingsError('A rule needs a tool name.');
    const now = Date.now();
    const expired = data.rules.filter((r) => r.expiresAt !== undefined && !(Date.parse(r.expiresAt) > now));
    const live = data.rules.filter((r) => !expired.includes(r));
    const same = (r: Rule) =>
      r.server === server &&
      r.tool === tool &&
      JSON.stringify(r.scope ?? null) === JSON.stringify(extra.scope ?? null) &&
      r.expiresAt === extra.expiresAt &&
      !!r.coversExfiltration === !!extra.coversExfiltration &&
      r.definitionHash === extra.definitionHash;
    const existing = live.find(same);
    const rule: Rule = existing ?? { id: randomUUID(), server, tool, action: 'allow', createdAt: new Date(now).toISOString(), ...definedOnly(extra) };
    // The person asked for it now: a hand-written copy becomes theirs. Sealed before it is written.
    this.sealRule(rule);
    if (!existing || expired.length) this.#set('rules', existing ? live : [...live, rule]);
    this.#withdrawRules(expired);
    return rule;
  }

  /** Changes a rule's lifetime or its exfiltration cover: the new form is sealed, the old one withdrawn. */
  updateRule(id: string, patch: Pick<Rule, 'expiresAt' | 'coversExfiltration'>): Rule {
    const { rules } = this.#read();
    const at = rules.findIndex((r) => r.id === id);
    if (at === -1) throw new SettingsError(`No rule with id "${id}".`);
    const before = rules[at]!;
    const { expiresAt: _e, coversExfiltration: _c, ...rest } = before;
    const next: Rule = { ...rest, ...definedOnly(patch) };
    this.sealRule(next);
    this.#set(
      'rules',
      rules.map((r, i) => (i === at ? next : r)),
    );
    this.#withdrawRules([before]);
    return next;
  }

  /** Seals a rule exactly as written (every field), so it takes effect. */
  sealRule(rule: Rule): void {
    this.#seal?.update((g) => void g.rules.push(ruleHash(rule)));
  }

  #withdrawRules(gone: Rule[]): void {
    if (!gone.length) return;
    const hashes = new Set(gone.map(ruleHash));
    this.#seal?.withdraw((g) => (g.rules = g.rules.filter((h) => !hashes.has(h))));
  }

  removeRule(id: string): void {
    const { rules } = this.#read();
    const rule = rules.find((r) => r.id === id);
    if (!rule) throw new SettingsError(`No rule with id "${id}".`);
    this.#set(
      'rules',
      rules.filter((r) => r.id !== id),
    );
    this.#seal?.withdraw((g) => (g.rules = g.rules.filter((h) => h !== ruleHash(rule))));
  }

  getSettings(): Settings {
    return this.#read().settings;
  }

  /** Writes settings; `policyPath: null` removes it (policy/policy-path.ts seals it, this only writes). */
  updateSettings(patch: SettingsPatch): Settings {
    const defined = Object.fromEntries(Object.entries(patch ?? {}).filter(([, v]) => v !== undefined));
    const next: Record<string, unknown> = { ...this.#read().settings, ...defined };
    if (next.policyPath === null) delete next.policyPath;
    if (next.auditExport === null) delete next.auditExport;
    const result = settingsSchema.safeParse(next);
    if (!result.success) throw new SettingsError(`Invalid settings: ${describe(result.error)}`);
    this.#set('settings', result.data);
    return result.data;
  }

  #requireServer(data: SettingsData, name: string): void {
    if (!Object.hasOwn(data.servers, name)) throw new SettingsError(`No server named "${name}".`);
  }

  #forget(data: SettingsData, name: string): void {
    const gone = data.rules.filter((r) => r.server === name);
    if (gone.length)
      this.#set(
        'rules',
        data.rules.filter((r) => r.server !== name),
      );
    if (Object.hasOwn(data.trusted, name)) this.#set('trusted', without(data.trusted, name));
    const hashes = new Set(gone.map(ruleHash));
    this.#seal?.withdraw((g) => {
      delete g.trust[name];
      g.rules = g.rules.filter((h) => !hashes.has(h));
    });
  }

  /**
   * Sealed grants the file no longer holds (trust taken away or the command edited by hand, a rule
   * deleted) are dropped, so that adding them back by hand later does not revive them.
   */
  #prune(data: SettingsData): void {
    const seal = this.#seal;
    if (!seal) return;
    const sealed = seal.grants();
    const inFile = new Set(data.rules.map(ruleHash));
    const staleTrust = Object.entries(sealed.trust).filter(([name, hash]) => !this.#trustedInFile(data, name) || launchHash(data.servers[name]!) !== hash);
    const staleRules = sealed.rules.filter((h) => !inFile.has(h));
    if (!staleTrust.length && !staleRules.length) return;
    seal.withdraw((g) => {
      for (const [name] of staleTrust) delete g.trust[name];
      g.rules = g.rules.filter((h) => !staleRules.includes(h));
    });
  }

  /** Read-modify-write of one part of the file (re-read first, so another process's change is kept). */
  #set<K extends keyof SettingsData>(key: K, value: SettingsData[K]): void {
    this.#file.write({ ...this.#file.read(), [key]: value });
  }

  /**
   * From disk whenever the file changed, so changes made by another process (the CLI) are seen at
   * once; a stat per read spares parsing and validating the file on every tool call.
   */
  #read(): SettingsData {
    const data = this.#file.read();
    if (data !== this.#prunedFor) {
      this.#prunedFor = data;
      this.#prune(data);
    }
    return data;
  }

  #emit(warning: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(warning);
      } catch {
        // One faulty listener must not stop the others or the read that found the problem.
      }
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}
