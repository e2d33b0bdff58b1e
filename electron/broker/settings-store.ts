// Servers, trust, rules and settings, persisted through conf (electron-store's base) behind a seam.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Conf, { type Schema } from 'conf';
import { z } from 'zod';
import type { ServerConfig, Settings } from '../../shared/api.js';
import type { Rule } from '../../shared/decision.js';
import { remoteConfigSchema, stdioConfigSchema } from '../../shared/api-schema.js';
import { writeFileAtomicSync } from './atomic-file.js';
import { FileVersion } from './file-version.js';
import { ruleHash, type GrantSeal } from './store/grant-seal.js';
import { launchHash } from './trust/launch-consent.js';

export interface StoreBackend {
  /** Re-read from disk on every access; throws when the file is unreadable or fails the schema. */
  readonly store: Record<string, unknown>;
  set(key: string, value: unknown): void;
  readonly path: string;
}

export type Migration = (store: StoreBackend) => void;

/** Options that both `new Conf(opts)` and `new ElectronStore(opts)` accept. */
export interface BackendOptions {
  cwd: string;
  /** conf's name for the file (without extension)… */
  configName: string;
  /** …and electron-store's, which overwrites configName with it (default 'config'). */
  name: string;
  projectName: string;
  projectVersion: string;
  schema: Schema<Record<string, unknown>>;
  rootSchema: { required: string[] };
  migrations: Record<string, Migration>;
  clearInvalidConfig: false;
  /** Server names may contain dots: keys are never paths. */
  accessPropertiesByDotNotation: false;
  configFileMode: number;
}

export type BackendFactory = (opts: BackendOptions) => StoreBackend;

export class SettingsError extends Error {
  override name = 'SettingsError';
}

interface SettingsData {
  schemaVersion: 1;
  servers: Record<string, ServerConfig>;
  trusted: Record<string, boolean>;
  rules: Rule[];
  settings: Settings;
}

const DEFAULT_SETTINGS: Settings = { approvalTimeoutSeconds: 120, upstreamTimeoutSeconds: 300, theme: 'system' };
/** Version of the file format, which drives conf's migrations; independent of the app version. */
export const SETTINGS_FORMAT_VERSION = '0.1.0';

// ---- validation -------------------------------------------------------------------------------

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateServerName(name: string): string | undefined {
  if (typeof name !== 'string' || !SERVER_NAME.test(name)) {
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

const settingsPatch = z
  .object({
    approvalTimeoutSeconds: z.number().int().min(1).max(86_400),
    upstreamTimeoutSeconds: z.number().int().min(1).max(86_400),
    theme: z.enum(['system', 'light', 'dark']),
    policyPath: z.string().min(1).max(4096).optional(),
  })
  .strict();

function describe(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

// ---- file schema and migrations ----------------------------------------------------------------

const stringMapSchema = { type: 'object', additionalProperties: { type: 'string' } } as const;
const timeoutSchema = { type: 'integer', minimum: 1, maximum: 86_400 } as const;

const pathList = { type: 'array', items: { type: 'string', pattern: '^/' } } as const;
const LIMITS_FILE_SCHEMA = {
  type: 'object',
  required: ['network', 'filesystem', 'passEnv'],
  additionalProperties: false,
  properties: {
    network: { enum: ['none', 'unrestricted'] },
    filesystem: {
      oneOf: [
        { const: 'host' },
        { type: 'object', required: ['read', 'write'], additionalProperties: false, properties: { read: pathList, write: pathList } },
      ],
    },
    passEnv: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
  },
} as const;

const FILE_SCHEMA: Schema<Record<string, unknown>> = {
  schemaVersion: { const: 1 },
  servers: {
    type: 'object',
    propertyNames: { pattern: SERVER_NAME.source },
    additionalProperties: {
      oneOf: [
        {
          type: 'object',
          required: ['command'],
          additionalProperties: false,
          properties: {
            command: { type: 'string', minLength: 1 },
            args: { type: 'array', items: { type: 'string' } },
            env: stringMapSchema,
            cwd: { type: 'string' },
            limits: LIMITS_FILE_SCHEMA,
          },
        },
        {
          type: 'object',
          required: ['url'],
          additionalProperties: false,
          properties: { url: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?:' }, headers: stringMapSchema },
        },
      ],
    },
  },
  trusted: { type: 'object', additionalProperties: { type: 'boolean' } },
  rules: {
    type: 'array',
    items: {
      type: 'object',
      required: ['id', 'server', 'tool', 'action', 'createdAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', minLength: 1 },
        server: { type: 'string' },
        tool: { type: 'string', minLength: 1 },
        action: { const: 'allow' },
        createdAt: { type: 'string' },
        scope: {
          oneOf: [
            { type: 'object', required: ['kind'], additionalProperties: false, properties: { kind: { const: 'tool' } } },
            { type: 'object', required: ['kind', 'dir', 'keys'], additionalProperties: false, properties: { kind: { const: 'under' }, dir: { type: 'string', minLength: 1 }, keys: { type: 'array', items: { type: 'string' } } } },
            {
              type: 'object', required: ['kind', 'targets'], additionalProperties: false,
              properties: { kind: { const: 'same-target' }, targets: { type: 'array', minItems: 1, items: { type: 'object', required: ['key', 'path'], additionalProperties: false, properties: { key: { type: 'string' }, path: { type: 'string' } } } } },
            },
            { type: 'object', required: ['kind', 'arguments'], additionalProperties: false, properties: { kind: { const: 'exact' }, arguments: { type: 'string' } } },
          ],
        },
        expiresAt: { type: 'string' },
        coversExfiltration: { type: 'boolean' },
        definitionHash: { type: 'string' },
      },
    },
  },
  settings: {
    type: 'object',
    required: ['approvalTimeoutSeconds', 'upstreamTimeoutSeconds', 'theme'],
    additionalProperties: false,
    properties: {
      approvalTimeoutSeconds: timeoutSchema,
      upstreamTimeoutSeconds: timeoutSchema,
      theme: { enum: ['system', 'light', 'dark'] },
      policyPath: { type: 'string', minLength: 1, maxLength: 4096 },
    },
  },
};

const MIGRATIONS: Record<string, Migration> = {
  // First versioned format: fill in whatever an older file lacks. Wrong-typed values are kept so
  // that the schema check rejects the file instead of a migration silently dropping data.
  '0.1.0': (backend) => {
    const data = backend.store;
    const fill = (key: string, value: unknown) => {
      if (!Object.hasOwn(data, key)) backend.set(key, value);
    };
    fill('servers', {});
    fill('trusted', {});
    fill('rules', []);
    const settings = data.settings;
    if (isPlainObject(settings)) backend.set('settings', { ...DEFAULT_SETTINGS, ...settings });
    else fill('settings', { ...DEFAULT_SETTINGS });
    backend.set('schemaVersion', 1);
  },
};

/** What a scoped or expiring rule adds to the plain one (session rules are never written). */
export type RuleExtra = Partial<Pick<Rule, 'scope' | 'expiresAt' | 'coversExfiltration' | 'definitionHash'>>;

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function backendOptions(dataDir: string): BackendOptions {
  return {
    cwd: path.resolve(dataDir),
    configName: 'settings',
    name: 'settings',
    projectName: 'countersign',
    projectVersion: SETTINGS_FORMAT_VERSION,
    schema: FILE_SCHEMA,
    rootSchema: { required: Object.keys(FILE_SCHEMA) },
    migrations: MIGRATIONS,
    clearInvalidConfig: false,
    accessPropertiesByDotNotation: false,
    // Server env and headers may hold secrets.
    configFileMode: 0o600,
  };
}

// ---- atomic writes -----------------------------------------------------------------------------

/**
 * conf writes through `atomically`, except under Snap or after EXDEV, where it falls back to a plain
 * writeFileSync that a crash can truncate. Replacing its write step closes that gap. Works for any
 * conf subclass, so the Electron shell can wrap electron-store the same way. (No encryption here.)
 */
export function withAtomicWrites<C extends new (...args: any[]) => object>(Base: C): C {
  return class extends Base {
    _write(value: unknown): void {
      const self = this as unknown as { path: string; _serialize(value: unknown): string };
      writeFileAtomicSync(self.path, self._serialize(value));
    }
  };
}

const AtomicConf = withAtomicWrites(Conf);

export const confBackend: BackendFactory = (opts) =>
  new AtomicConf(opts as unknown as ConstructorParameters<typeof Conf>[0]) as unknown as StoreBackend;

// ---- the store ---------------------------------------------------------------------------------

export class SettingsStore {
  readonly path: string;
  #backend: StoreBackend;
  readonly #factory: BackendFactory;
  readonly #options: BackendOptions;
  readonly #listeners = new Set<(warning: string) => void>();
  #cache?: { key: string; data: SettingsData };
  #version!: FileVersion;
  /** Trust and rules take effect only when sealed too (a hand edit cannot add them). */
  readonly #seal?: GrantSeal;

  static open(opts: { dataDir: string; backend?: BackendFactory; seal?: GrantSeal }): { store: SettingsStore; warnings: string[] } {
    const warnings: string[] = [];
    const store = new SettingsStore(opts.dataDir, opts.backend ?? confBackend, (w) => warnings.push(w), opts.seal);
    return { store, warnings };
  }

  private constructor(dataDir: string, factory: BackendFactory, warn: (warning: string) => void, seal?: GrantSeal) {
    this.#seal = seal;
    this.#factory = factory;
    this.#options = backendOptions(dataDir);
    this.path = path.join(this.#options.cwd, `${this.#options.configName}.json`);
    this.#version = new FileVersion(this.path);
    this.#backend = this.#openBackend(warn);
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
    return !this.#seal || this.#seal.trust(name) === launchHash(data.servers[name]!);
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
    const same = (r: Rule) => r.server === server && r.tool === tool && JSON.stringify(r.scope ?? null) === JSON.stringify(extra.scope ?? null)
      && r.expiresAt === extra.expiresAt && !!r.coversExfiltration === !!extra.coversExfiltration && r.definitionHash === extra.definitionHash;
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
    this.#set('rules', rules.map((r, i) => (i === at ? next : r)));
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
    this.#set('rules', rules.filter((r) => r.id !== id));
    this.#seal?.withdraw((g) => (g.rules = g.rules.filter((h) => h !== ruleHash(rule))));
  }

  getSettings(): Settings {
    return this.#read().settings;
  }

  updateSettings(patch: Partial<Settings>): Settings {
    const defined = Object.fromEntries(Object.entries(patch ?? {}).filter(([, v]) => v !== undefined));
    const result = settingsPatch.safeParse({ ...this.#read().settings, ...defined });
    if (!result.success) throw new SettingsError(`Invalid settings: ${describe(result.error)}`);
    this.#set('settings', result.data);
    return result.data;
  }

  #requireServer(data: SettingsData, name: string): void {
    if (!Object.hasOwn(data.servers, name)) throw new SettingsError(`No server named "${name}".`);
  }

  #forget(data: SettingsData, name: string): void {
    const gone = data.rules.filter((r) => r.server === name);
    if (gone.length) this.#set('rules', data.rules.filter((r) => r.server !== name));
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

  #set(key: string, value: unknown): void {
    this.#cache = undefined;
    this.#backend.set(key, value);
    this.#version.invalidate();
  }

  /**
   * From disk whenever the file changed, so changes made by another process (the CLI) are seen at
   * once; a stat per read spares parsing and validating the file on every tool call.
   */
  #read(): SettingsData {
    const key = this.#version.current();
    if (key && this.#cache?.key === key) return this.#cache.data;
    const data = this.#readFresh();
    this.#version.invalidate();
    const after = this.#version.current();
    this.#cache = after && after === key ? { key, data } : undefined;
    this.#prune(data);
    return data;
  }

  #readFresh(): SettingsData {
    let data: Record<string, unknown>;
    try {
      data = this.#backend.store;
    } catch (error) {
      const reason = this.#corruptionReason(error);
      if (!reason) throw error;
      this.#backend = this.#startOver(reason, undefined, (w) => this.#emit(w));
      data = this.#backend.store;
    }
    // conf reads a deleted file as {}: start again from defaults rather than crash on it.
    if (data.schemaVersion !== 1) {
      this.#backend = this.#openBackend((w) => this.#emit(w));
      data = this.#backend.store;
    }
    return data as unknown as SettingsData;
  }

  #openBackend(warn: (warning: string) => void): StoreBackend {
    let original: Buffer | undefined;
    let reason: string | undefined;
    try {
      original = fs.readFileSync(this.path);
      reason = notASettingsObject(original);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') reason = (error as Error).message;
    }
    if (!reason) {
      try {
        const backend = this.#factory(this.#options);
        void backend.store; // validate now, not on first use
        return backend;
      } catch (error) {
        reason = this.#corruptionReason(error);
        if (!reason) throw error;
      }
    }
    return this.#startOver(reason, original, warn);
  }

  /** Move the bad file aside (never delete it) and begin again from defaults. */
  #startOver(reason: string, original: Buffer | undefined, warn: (warning: string) => void): StoreBackend {
    const moved = this.#moveAside(original);
    warn(
      `Settings file ${this.path} could not be read (${reason}); ` +
        (moved ? `it was moved to ${moved}. ` : 'another Countersign process has moved it aside. ') +
        'Countersign started with safe defaults: no server is trusted.',
    );
    return this.#factory(this.#options);
  }

  #moveAside(original: Buffer | undefined): string | undefined {
    // A migration may have rewritten the file before its schema check failed: keep the person's bytes.
    if (original && !original.equals(readOrEmpty(this.path))) writeFileAtomicSync(this.path, original);
    const stamp = new Date().toISOString().replace(/:/g, '');
    let target = `${this.path}.corrupt-${stamp}`;
    for (let n = 1; fs.existsSync(target); n++) target = `${this.path}.corrupt-${stamp}-${n}`;
    try {
      fs.renameSync(this.path, target);
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  #corruptionReason(error: unknown): string | undefined {
    if (!(error instanceof Error)) return undefined;
    if (error.name === 'SyntaxError') return `it is not valid JSON: ${error.message}`;
    if (/schema violation|during the migration/i.test(error.message)) return error.message;
    const { code, path: errorPath } = error as NodeJS.ErrnoException;
    if (errorPath === this.path && ['EACCES', 'EPERM', 'EISDIR'].includes(code ?? '')) return error.message;
    return undefined;
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

function notASettingsObject(bytes: Buffer): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return `it is not valid JSON: ${(error as Error).message}`;
  }
  // conf would otherwise read null or an array as an empty store and migrate over it.
  return isPlainObject(value) ? undefined : 'it does not hold a JSON object';
}

function readOrEmpty(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch {
    return Buffer.alloc(0);
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
