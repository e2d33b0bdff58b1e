// What the command line and environment say about this launch: the data dir, and whether to start
// hidden in the tray (a login item).
import { resolveDataDir } from '../broker/store/data-dir.js';

/** `--name=value` or `--name value`; the last one wins, as in the CLI. */
export function flagValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
    else if (arg === name && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i];
  }
  return value || undefined;
}

/**
 * The desktop app's data dir, which is also its userData folder: --data-dir, else COUNTERSIGN_HOME,
 * else the folder Electron would pick for "Countersign". The same rules as the CLI, so
 * `countersign serve` and the app always meet at one broker lock.
 */
export function desktopDataDir(argv: readonly string[], env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  return resolveDataDir({ flag: flagValue(argv, '--data-dir'), env, platform });
}

export const HIDDEN_FLAG = '--hidden';

/** Started at login: stay in the tray until the person asks for the window. */
export function startsHidden(argv: readonly string[], openedAtLogin = false): boolean {
  return openedAtLogin || argv.includes(HIDDEN_FLAG);
}
