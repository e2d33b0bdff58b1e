// The command line inside the app's executable (bundled to dist/electron/cli/app-cli.mjs with every
// dependency, so the installed app needs no Node of its own on PATH). Runs one command to its end.
import { useInstalledApp, type InstalledApp } from '../broker/core/cli-command.js';
import { runCli } from '../cli/run.js';
import { desktopDataDir } from './launch-options.js';

export interface AppCliOptions {
  rendererDir: string;
  /** The app itself, so the commands this CLI shows and writes name it (no Node needed). */
  installed: InstalledApp;
  setChromiumPaths(dataDir: string): void;
}

export async function runInApp(args: string[], opts: AppCliOptions): Promise<number> {
  useInstalledApp(opts.installed);
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args; // after `--`: a server's arguments
  opts.setChromiumPaths(desktopDataDir(own, process.env));
  const code = await runCli(args, { rendererDir: opts.rendererDir });
  // app.exit() does not wait for pipes to drain: a client must get the last line of output.
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  return code;
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write('', () => resolve());
  });
}
