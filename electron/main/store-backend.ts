// The broker's settings go through electron-store when it is installed (the broker's BackendFactory
// seam), wrapped with withAtomicWrites like the CLI's conf. electron-store is conf with Electron
// defaults, and backendOptions sets every one of them (cwd, name), so both write the same file.
import Conf from 'conf';
import { withAtomicWrites, type BackendFactory, type BackendOptions, type StoreBackend } from '../broker/settings-store.js';

type StoreClass = new (options: BackendOptions) => object;

export interface LoadedBackend {
  factory: BackendFactory;
  kind: 'electron-store' | 'conf';
  /** Set when electron-store could not be loaded and conf is used instead. */
  warning?: string;
}

/** A variable, so neither tsc nor esbuild tries to resolve a package that may not be installed. */
const ELECTRON_STORE = 'electron-store';

/**
 * electron-store's constructor registers this ipcMain listener (a synchronous answer for
 * renderer-side stores). The app has none, and every IPC channel goes through the gatekeeper: the shell removes it.
 */
export const ELECTRON_STORE_IPC_CHANNEL = 'electron-store-get-data';

export async function loadStoreBackend(importer: (specifier: string) => Promise<unknown> = (s) => import(s)): Promise<LoadedBackend> {
  let Base: StoreClass;
  let kind: LoadedBackend['kind'] = 'electron-store';
  let warning: string | undefined;
  try {
    Base = storeClassOf(await importer(ELECTRON_STORE));
  } catch (error) {
    Base = Conf as unknown as StoreClass;
    kind = 'conf';
    warning = `electron-store is not available (${error instanceof Error ? error.message : String(error)}); using conf, which writes the same settings file.`;
  }
  const Atomic = withAtomicWrites(Base);
  return { factory: (opts) => new Atomic(opts) as unknown as StoreBackend, kind, warning };
}

function storeClassOf(mod: unknown): StoreClass {
  const candidate = typeof mod === 'object' && mod !== null ? (mod as { default?: unknown }).default : undefined;
  if (typeof candidate !== 'function') throw new Error('the electron-store module has no default export');
  return candidate as StoreClass;
}
