// Whether this launch of the app's executable is a command line (`Countersign --cli servers list`)
// rather than the desktop app, and which executable clients should name. Pure: the entry decides on
// it before anything else runs, before any window, tray or single-instance lock.
import path from 'node:path';
import { CLI_SWITCH, type InstalledApp } from '../broker/core/cli-command.js';

/**
 * The CLI's arguments when `--cli` comes first among the leading switches (Chromium switches such as
 * --ozone-platform=headless may precede it); undefined for a desktop launch. The packaged app gets its
 * arguments from argv[1]; an unpackaged run (`electron dist/electron/entry.mjs …`) from argv[2].
 */
export function cliArguments(argv: readonly string[], isPackaged: boolean): string[] | undefined {
  for (let i = isPackaged ? 1 : 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === CLI_SWITCH) return argv.slice(i + 1);
    if (!arg.startsWith('--') || arg === '--') return undefined;
  }
  return undefined;
}

/**
 * The path clients should run. An AppImage runs from a temporary mount, so its own file ($APPIMAGE)
 * is the stable one; but only when this process is inside that mount ($APPDIR): another AppImage's
 * variables can leak into the environment of anything it starts.
 */
export function installedExe(execPath: string, env: NodeJS.ProcessEnv): string {
  const { APPIMAGE, APPDIR } = env;
  if (APPIMAGE && APPDIR && path.isAbsolute(APPIMAGE) && execPath.startsWith(path.join(APPDIR, path.sep))) return APPIMAGE;
  return execPath;
}

/** The app as the command for clients: packaged, its executable; unpackaged, the executable and its entry. */
export function appItself(
  isPackaged: boolean,
  exe: string,
  entry: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): InstalledApp {
  return isPackaged ? { exe: installedExe(exe, env), platform } : { exe, entry, platform };
}
