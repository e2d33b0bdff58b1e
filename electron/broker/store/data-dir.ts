// Where the broker keeps its state, and the local socket that goes with it.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PRODUCT_NAME = 'Countersign';

export interface DataDirOptions {
  /** Value of --data-dir. */
  flag?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/** --data-dir, else COUNTERSIGN_HOME, else the folder Electron's app.getPath('userData') uses. */
export function resolveDataDir(opts: DataDirOptions = {}): string {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const p = pathFor(platform);
  const explicit = opts.flag || env.COUNTERSIGN_HOME;
  if (explicit) return p.resolve(explicit);

  const home = opts.home ?? os.homedir();
  if (platform === 'win32') {
    return p.join(env.APPDATA || p.join(home, 'AppData', 'Roaming'), PRODUCT_NAME);
  }
  if (platform === 'darwin') {
    return p.join(home, 'Library', 'Application Support', PRODUCT_NAME);
  }
  // XDG says relative values must be ignored, as Electron does.
  const xdg = env.XDG_CONFIG_HOME;
  return p.join(xdg && p.isAbsolute(xdg) ? xdg : p.join(home, '.config'), PRODUCT_NAME);
}

/** mkdir -p, private to this user. An existing folder keeps its mode: it may be one the person chose. */
export function ensureDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

// sun_path is 104 bytes on macOS/BSD and 108 on Linux; keep a margin for the terminating NUL.
const MAX_SOCKET_PATH_BYTES = 100;

/** The broker's local endpoint: a Unix socket in the data dir, or a named pipe on Windows. */
export function socketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  return socketNamed('broker', dataDir, platform);
}

/** Where `connect` sends relay-mode reports (Unix only: relay mode is not used with named pipes). */
export function reportsSocketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  return socketNamed('reports', dataDir, platform);
}

function socketNamed(name: string, dataDir: string, platform: NodeJS.Platform): string {
  const p = pathFor(platform);
  const resolved = p.resolve(dataDir);
  if (platform === 'win32') {
    // Windows paths are case-insensitive: two spellings of one folder must reach the same broker.
    return `\\\\.\\pipe\\countersign-${shortHash(resolved.toLowerCase())}`;
  }
  const inDir = p.join(resolved, `${name}.sock`);
  if (Buffer.byteLength(inDir) <= MAX_SOCKET_PATH_BYTES) return inDir;
  // Too long for bind(): use the temp folder. The uid keeps users apart on a shared /tmp; `connect`
  // checks the socket's owner before it sends its secret, and the CLI has the broker prove itself.
  const uid = process.getuid?.() ?? 0;
  return path.join(os.tmpdir(), `countersign-${uid}-${shortHash(resolved)}${name === 'broker' ? '' : `-${name}`}.sock`);
}

function shortHash(text: string): string {
  // Loaded only here (rare: Windows, or a very long path): node:crypto costs `connect` about 1 MB.
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function pathFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}
