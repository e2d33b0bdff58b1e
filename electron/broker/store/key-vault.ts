// The seal key of one data dir, and the generation of the last sealed grants, kept OUTSIDE the data
// dir: in the OS keyring when it works, else in a key file of its own (COUNTERSIGN_KEY_DIR, or the
// per-user state folder). A hand edit inside the data dir cannot forge a seal without this key, nor
// replay an older sealed file past this generation. (What the key file cannot hold: docs/security.md.)
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomicSync } from './atomic-file.js';
import { moveAside } from './move-aside.js';

export interface VaultState {
  key: Buffer;
  generation: number;
}

export interface KeyVault {
  /** Where the key lives, for messages and docs. */
  readonly where: string;
  /** The key file (fallback only): a protected path, since reading it lets one forge seals. */
  readonly keyFile?: string;
  /** Created (random key, generation 0) the first time. */
  load(): VaultState;
  saveGeneration(generation: number): void;
}

const stored = z
  .object({ version: z.literal(1), dataDir: z.string(), key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/), generation: z.number().int().min(0) })
  .strict();
type Stored = z.infer<typeof stored>;

const KEYRING_SERVICE = 'Countersign';

/** One key per data dir: the account (or file) name is a hash of its resolved path. */
export function vaultId(dataDir: string): string {
  return createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 24);
}

/** The fallback key folder: COUNTERSIGN_KEY_DIR, else per-user state kept apart from the data dir. */
export function defaultKeyDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, home = os.homedir()): string {
  if (env.COUNTERSIGN_KEY_DIR) return path.resolve(env.COUNTERSIGN_KEY_DIR);
  if (platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'Countersign Keys');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Countersign Keys');
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state');
  return path.join(state, 'countersign-keys');
}

function fresh(dataDir: string): Stored {
  return { version: 1, dataDir: path.resolve(dataDir), key: randomBytes(32).toString('base64'), generation: 0 };
}

function parse(text: string): Stored {
  return stored.parse(JSON.parse(text));
}

const toState = (s: Stored): VaultState => ({ key: Buffer.from(s.key, 'base64'), generation: s.generation });

/** A key file of its own, mode 0600 in a 0700 folder. */
export class FileVault implements KeyVault {
  readonly keyFile: string;
  readonly where: string;
  #cache?: Stored;

  constructor(
    private readonly dataDir: string,
    keyDir: string,
    private readonly warn: (text: string) => void,
  ) {
    this.keyFile = path.join(keyDir, `${vaultId(dataDir)}.key.json`);
    this.where = `the key file ${this.keyFile}`;
  }

  load(): VaultState {
    return toState(this.#read());
  }

  saveGeneration(generation: number): void {
    const next = { ...this.#read(), generation };
    this.#write(next);
  }

  #read(): Stored {
    let text: string;
    try {
      text = fs.readFileSync(this.keyFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // First use (or the key was deleted: every sealed grant then waits for confirmation again).
      const made = fresh(this.dataDir);
      this.#write(made);
      return made;
    }
    try {
      const value = parse(text);
      this.#cache = value;
      return value;
    } catch (error) {
      const moved = moveAside(this.keyFile);
      this.warn(
        `The seal key ${this.keyFile} could not be read (${(error as Error).message.split('\n')[0]}); it was moved to ${moved ?? '(gone)'}. A new key was made: every trust, launch consent and rule waits for your confirmation in Countersign.`,
      );
      const made = fresh(this.dataDir);
      this.#write(made);
      return made;
    }
  }

  #write(value: Stored): void {
    fs.mkdirSync(path.dirname(this.keyFile), { recursive: true, mode: 0o700 });
    writeFileAtomicSync(this.keyFile, JSON.stringify(value) + '\n', 0o600);
    this.#cache = value;
  }
}

interface SyncEntry {
  getPassword(): string | null;
  setPassword(password: string): void;
}

/** The OS keyring (macOS Keychain, Windows Credential Manager, Secret Service). */
export class KeyringVault implements KeyVault {
  readonly where: string;
  readonly keyFile = undefined;
  #cache?: Stored;

  constructor(
    private readonly dataDir: string,
    private readonly entry: SyncEntry,
  ) {
    this.where = `the system keyring (service "${KEYRING_SERVICE}", account "seal-${vaultId(dataDir)}")`;
  }

  load(): VaultState {
    const text = this.entry.getPassword();
    let value: Stored | undefined;
    if (text !== null) {
      try {
        value = parse(text);
      } catch {
        value = undefined; // replaced below: the grants then wait for confirmation again
      }
    }
    if (!value) {
      value = fresh(this.dataDir);
      this.entry.setPassword(JSON.stringify(value));
    }
    this.#cache = value;
    return toState(value);
  }

  saveGeneration(generation: number): void {
    if (!this.#cache) this.load();
    const next = { ...this.#cache!, generation };
    this.entry.setPassword(JSON.stringify(next));
    this.#cache = next;
  }
}

/** Where a Secret Service could be reached: D-Bus's session bus (its address, else the socket in the runtime dir). */
function sessionBusMayExist(env: NodeJS.ProcessEnv, exists: (file: string) => boolean): boolean {
  if (env.DBUS_SESSION_BUS_ADDRESS) return true;
  const uid = process.getuid?.();
  const dirs = [env.XDG_RUNTIME_DIR, uid === undefined ? undefined : `/run/user/${uid}`];
  return dirs.some((dir) => dir !== undefined && path.isAbsolute(dir) && exists(path.join(dir, 'bus')));
}

/**
 * Whether an OS keyring may answer here, judged without loading the keyring's native module (1.5 MB
 * that stays in memory once loaded). macOS and Windows always have one. Elsewhere only the Secret
 * Service counts (the kernel keyring forgets its keys at reboot, which would drop every sealed grant),
 * and it needs a session bus: none on headless machines and in containers.
 */
export function keyringMayAnswer(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  exists: (file: string) => boolean = fs.existsSync,
): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return sessionBusMayExist(env, exists);
}

/**
 * COUNTERSIGN_KEY_DIR chooses a key file; otherwise the keyring when it answers, else the key file in
 * the per-user state folder (headless Linux without a Secret Service, containers).
 */
export function openVault(dataDir: string, env: NodeJS.ProcessEnv, warn: (text: string) => void): KeyVault {
  if (!env.COUNTERSIGN_KEY_DIR && keyringMayAnswer(env)) {
    try {
      // Loaded here only: the native module costs start-up time and memory, and `connect` never seals.
      const { Entry } = createRequire(import.meta.url)('@napi-rs/keyring') as { Entry: new (service: string, account: string, options?: object) => SyncEntry };
      // On Linux only the Secret Service, not its fallback to the kernel keyring (gone at reboot).
      const vault = new KeyringVault(dataDir, new Entry(KEYRING_SERVICE, `seal-${vaultId(dataDir)}`, { linux: { store: 'secret-service' } }));
      vault.load();
      return vault;
    } catch {
      // No keyring here: fall back to the key file below.
    }
  }
  return new FileVault(dataDir, defaultKeyDir(env), warn);
}
