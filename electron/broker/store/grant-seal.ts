// Sealed grants: what the person granted through Countersign (trust, launch consent, "always allow"
// rules, the user policy's path), with an HMAC tag made with a key kept outside the data dir
// (key-vault.ts). A grant takes effect only when the files say so AND the seal says so: a hand edit that
// adds trust, consent or a rule changes nothing until the person confirms it; one that removes them
// applies at once (a policy path is the exception: removing it removes friction, see
// policy/policy-path.ts). The generation sealed along must match the vault's, so an older sealed copy
// cannot be replayed.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { auditExportSchema, type AuditExportDestination } from '../../../shared/audit-export-schema.js';
import { limitsSchema } from '../../../shared/config-schema.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { LimitsProfile } from '../../../shared/limits.js';
import type { ProtectedPath } from '../../../shared/protected-paths.js';
import { writeFileAtomicSync } from './atomic-file.js';
import { FileVersion } from './file-version.js';
import { openVault, type KeyVault } from './key-vault.js';
import { describeProblems, StoreHygiene } from './store-hygiene.js';

/** The data folder or a store file is not safe (store-hygiene.ts): nothing is sealed until it is fixed. */
export class SafeModeError extends Error {
  override name = 'SafeModeError';
}

export const SEALED_FILE = 'grants.sealed.json';

/** The store files whose owner and mode are checked, besides the folder itself. */
export const STORE_FILES = ['settings.json', 'trust.json', SEALED_FILE, 'audit.jsonl'];

const sha = z.string().regex(/^[0-9a-f]{64}$/);
const grantsSchema = z
  .object({
    /** Server → the launch hash of the config it was trusted with. */
    trust: z.record(sha),
    /** Server → the launch hash the person consented to. */
    launch: z.record(sha),
    /** Hashes of "always allow" rules (canonical JSON of the whole rule, so every field is covered). */
    rules: z.array(sha),
    /**
     * Server → the limits (canonical JSON) of its last approved launch: what a team-policy entry that
     * states no limits covers. Not pruned with trust.json, so deleting a record there does not erase it.
     * Optional: files sealed before it existed verify as written.
     */
    limits: z.record(z.string()).optional(),
    /**
     * Server → the launch hash the person let run without the limits this machine cannot enforce
     * (trust/run-without-limits.ts). Optional: files sealed before it existed verify as written.
     */
    unenforced: z.record(sha).optional(),
    /**
     * The user policy file the person set or confirmed in Countersign (policy/policy-path.ts). Optional:
     * files sealed before it existed verify as written.
     */
    policy: z.string().min(1).max(4096).optional(),
    /**
     * Where the person exports the audit log (audit-export/export-setting.ts): the seal's copy is the one
     * in effect, so a hand edit of settings.json can neither turn the export off nor point it elsewhere.
     */
    auditExport: auditExportSchema.optional(),
  })
  .strict();
const fileSchema = z.object({ version: z.literal(1), generation: z.number().int().min(1), grants: grantsSchema, tag: z.string() }).strict();

export type Grants = z.infer<typeof grantsSchema>;

const empty = (): Grants => ({ trust: {}, launch: {}, rules: [] });

export function ruleHash(rule: object): string {
  return createHash('sha256').update(canonicalJson(rule)).digest('hex');
}

export class GrantSeal {
  readonly path: string;
  readonly #dataDir: string;
  readonly #vault: KeyVault;
  readonly #version: FileVersion;
  readonly #warn: (text: string) => void;
  readonly #hygiene: StoreHygiene;
  #cache?: { key: string | undefined; grants: Grants; generation: number };
  /** Warned once per bad file version, not on every read. */
  #warnedFor?: string;

  static open(dataDir: string, env: NodeJS.ProcessEnv, warn: (text: string) => void, vault?: KeyVault): GrantSeal {
    return new GrantSeal(dataDir, vault ?? openVault(dataDir, env, warn), warn);
  }

  private constructor(dataDir: string, vault: KeyVault, warn: (text: string) => void) {
    this.#dataDir = path.resolve(dataDir);
    this.#vault = vault;
    this.#warn = warn;
    this.path = path.join(this.#dataDir, SEALED_FILE);
    this.#version = new FileVersion(this.path);
    const keyFile = vault.keyFile;
    this.#hygiene = new StoreHygiene(() => [
      { path: this.#dataDir, kind: 'dir' },
      ...STORE_FILES.map((f) => ({ path: path.join(this.#dataDir, f), kind: 'file' as const })),
      ...(keyFile
        ? [
            { path: path.dirname(keyFile), kind: 'dir' as const },
            { path: keyFile, kind: 'file' as const },
          ]
        : []),
    ]);
    if (vault.keyFile && isInside(vault.keyFile, this.#dataDir)) {
      warn(
        `The seal key ${vault.keyFile} is inside the data folder, so a hand edit there can forge trust and launch consent. Set COUNTERSIGN_KEY_DIR to a folder outside ${this.#dataDir}.`,
      );
    }
  }

  /** Where the key is kept (keyring or key file), for the status and the docs. */
  get keyWhere(): string {
    return this.#vault.where;
  }

  /** A key for another sealed store (the undo index), derived from the seal key so the two never coincide. */
  derivedKey(purpose: string): Buffer {
    return createHmac('sha256', this.#vault.load().key).update(`countersign:${purpose}`).digest();
  }

  /** The key file, when there is one: no tool call may touch it without the person. */
  protectedPaths(): ProtectedPath[] {
    return this.#vault.keyFile ? [{ path: this.#vault.keyFile, what: "Countersign's seal key" }] : [];
  }

  /** Why the store is in safe mode (with the fix), or undefined when it is not. */
  unsafe(): string | undefined {
    const problems = this.#hygiene.problems();
    return problems.length ? describeProblems(problems) : undefined;
  }

  /** Look at the folder's and files' modes again on the next check (after a fix). */
  recheck(): void {
    this.#hygiene.invalidate();
  }

  trust(server: string): string | undefined {
    const { trust } = this.#read().grants;
    return Object.hasOwn(trust, server) ? trust[server] : undefined;
  }

  launch(server: string): string | undefined {
    const { launch } = this.#read().grants;
    return Object.hasOwn(launch, server) ? launch[server] : undefined;
  }

  hasRule(hash: string): boolean {
    return this.#read().grants.rules.includes(hash);
  }

  /** The user policy file set or confirmed by the person (undefined when none is). */
  policyPath(): string | undefined {
    return this.#read().grants.policy;
  }

  /** The audit export destination the person set in Countersign (undefined when none is). */
  auditExport(): AuditExportDestination | undefined {
    return this.#read().grants.auditExport;
  }

  /** The limits of the server's last approved launch, as sealed (undefined when none is). */
  limitsBaseline(server: string): LimitsProfile | undefined {
    const { limits } = this.#read().grants;
    if (!limits || !Object.hasOwn(limits, server)) return undefined;
    const parsed = limitsSchema.safeParse(JSON.parse(limits[server]!));
    return parsed.success ? parsed.data : undefined;
  }

  /**
   * True when grants were sealed here before but the sealed file is now missing or not valid: what
   * it held (such as a limits baseline) can no longer be known, so nothing may be assumed from its absence.
   */
  recordsLost(): boolean {
    return this.#read().generation === 0 && this.#vault.load().generation > 0;
  }

  /** Every sealed grant (a copy). */
  grants(): Grants {
    return structuredClone(this.#read().grants);
  }

  /** Seals a change: the current valid grants, changed, under the next generation. Throws when it cannot be saved. */
  update(change: (grants: Grants) => void): void {
    const unsafe = this.unsafe();
    if (unsafe) throw new SafeModeError(`Nothing was saved. ${unsafe}`);
    const current = this.#read();
    const grants = structuredClone(current.grants);
    change(grants);
    grants.rules = [...new Set(grants.rules)].sort();
    if (canonicalJson(grants) === canonicalJson(current.grants)) return;
    const { key, generation: vaultGeneration } = this.#vault.load();
    const generation = Math.max(vaultGeneration, current.generation) + 1;
    const body = { version: 1 as const, generation, grants };
    // File first, then the vault: a crash between leaves a file one generation ahead, accepted below.
    writeFileAtomicSync(this.path, JSON.stringify({ ...body, tag: this.#tag(key, body) }, null, 1) + '\n');
    this.#vault.saveGeneration(generation);
    this.#version.invalidate();
    this.#cache = { key: this.#version.current(), grants, generation };
  }

  /** Removes grants (never fails the caller: a stale sealed grant only matters if the files say so too). */
  withdraw(change: (grants: Grants) => void): void {
    try {
      this.update(change);
    } catch {
      // A read-only data dir: the files already took the grant away, which is what counts.
    }
  }

  #tag(key: Buffer, body: { version: 1; generation: number; grants: Grants }): string {
    return createHmac('sha256', key)
      .update(canonicalJson({ ...body, dataDir: this.#dataDir }))
      .digest('hex');
  }

  #read(): { grants: Grants; generation: number } {
    // In safe mode nothing counts as granted: the files may have been written by someone else.
    if (this.#hygiene.problems().length) return { grants: empty(), generation: 0 };
    const version = this.#version.current();
    if (this.#cache && this.#cache.key === version) return this.#cache;
    const found = this.#verify(version);
    this.#cache = { key: version, ...found };
    return found;
  }

  #verify(version: string | undefined): { grants: Grants; generation: number } {
    if (version === undefined) return { grants: empty(), generation: 0 };
    let problem: string;
    try {
      const file = fileSchema.parse(JSON.parse(fs.readFileSync(this.path, 'utf8')));
      const { key, generation } = this.#vault.load();
      const expected = Buffer.from(this.#tag(key, { version: 1, generation: file.generation, grants: file.grants }), 'hex');
      const given = Buffer.from(file.tag, 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        problem = 'its seal does not match (it was edited outside Countersign, or sealed with another key)';
      else if (file.generation === generation) return { grants: file.grants, generation };
      else if (file.generation === generation + 1) {
        // Written just before a crash, before the vault caught up: it is ours (the tag says so).
        this.#vault.saveGeneration(file.generation);
        return { grants: file.grants, generation: file.generation };
      } else problem = `it is generation ${file.generation}, but the last one Countersign sealed is ${generation} (an older copy was put back)`;
    } catch (error) {
      problem = `it could not be read: ${(error as Error).message.split('\n')[0]}`;
    }
    if (this.#warnedFor !== version) {
      this.#warnedFor = version;
      this.#warn(
        `The sealed grants ${this.path} are not valid: ${problem}. Trust, launch consent and rules written by hand do not take effect until you confirm them in Countersign (Servers).`,
      );
    }
    return { grants: empty(), generation: 0 };
  }
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, path.resolve(file));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
