// The absolute command that starts this installation's CLI. Client entries name it, never a registry
// name (`npx countersign` would install whatever package holds that name when the client starts).
// - the installed desktop app: its own executable in command-line mode (no Node needed);
// - a checkout or an npm install: an absolute Node running the package's bin script.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CliCommand {
  /** Absolute path of the program to run. */
  command: string;
  /** Arguments before the CLI's own (the launcher script, or the app's command-line switches). */
  args: string[];
  /** Something the person should know about this command, e.g. a Node that a version manager may remove. */
  note?: string;
}

/** The desktop app, as its shell sees it: the command line is the app's own executable. */
export interface InstalledApp {
  /** The app's executable: app.getPath('exe'), or $APPIMAGE for an AppImage (its mount point is temporary). */
  exe: string;
  /** Unpackaged (`electron dist/electron/entry.mjs`): the entry script the executable must be given. */
  entry?: string;
  platform: NodeJS.Platform;
}

let installed: InstalledApp | undefined;

/** Called by the app's shell first thing: from then on the CLI's command is the app's own. */
export function useInstalledApp(app: InstalledApp | undefined): void {
  installed = app;
}

/** The first argument that puts the app's executable in command-line mode (electron/main/cli-mode.ts). */
export const CLI_SWITCH = '--cli';

/** The app's executable in command-line mode. On Linux it needs no display: Ozone's headless platform. */
export function appCommand(app: InstalledApp): CliCommand {
  const display = app.platform === 'linux' ? ['--ozone-platform=headless', '--disable-gpu'] : [];
  return { command: app.exe, args: [...(app.entry ? [app.entry] : []), ...display, CLI_SWITCH] };
}

const memo = new Map<string, CliCommand>();

export function countersignCommand(from: string = fileURLToPath(import.meta.url), node: string = process.execPath): CliCommand {
  if (installed) return appCommand(installed);
  const key = `${from}\0${node}`;
  let found = memo.get(key);
  if (!found) {
    const root = packageRoot(from);
    if (!root) throw new Error(`Countersign could not find its own package folder from ${from}.`);
    const chosen = stableNode(node);
    found = { command: chosen.node, args: [path.join(root, 'bin', 'countersign.mjs')], note: chosen.note };
    memo.set(key, found);
  }
  return found;
}

/**
 * The files that start this installation's CLI, whatever a call names them by (a symlink, another
 * spelling): a guarded call that names one runs Countersign, and asks (self-protection).
 */
export function cliPrograms(from: string = fileURLToPath(import.meta.url)): string[] {
  if (installed) return [installed.exe, ...(installed.entry ? [installed.entry] : [])];
  const root = packageRoot(from);
  return root ? ['bin/countersign.mjs', 'dist/cli.mjs', 'dist/connect.mjs', 'dist/electron/entry.mjs'].map((f) => path.join(root, f)) : [];
}

/** The folder of the countersign package that holds `file` (source, dist bundle or test alike). */
export function packageRoot(file: string): string | undefined {
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && existsSync(path.join(dir, 'bin', 'countersign.mjs'))) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'countersign') return dir;
      } catch {
        // Not ours: keep walking up.
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Node versions that a version manager installed, and can uninstall. */
const VERSION_MANAGED =
  /[\\/](?:\.nvm[\\/]versions|fnm[\\/]node-versions|fnm_multishells|\.volta[\\/]tools[\\/]image|\.asdf[\\/]installs|mise[\\/]installs|\.nodenv[\\/]versions|\.local[\\/]share[\\/]nvm|nvm[\\/]v\d)[\\/]/i;
/** A Node that a version manager (nvm, fnm, volta, asdf, mise, nodenv) installed: it goes when that version is uninstalled. */
export function isVersionManaged(node: string): boolean {
  return VERSION_MANAGED.test(node);
}

const SYSTEM_NODES: Record<string, string[]> = {
  darwin: ['/opt/homebrew/bin/node', '/usr/local/bin/node'],
  linux: ['/usr/local/bin/node', '/usr/bin/node'],
  win32: ['C:\\Program Files\\nodejs\\node.exe'],
};
const MIN_NODE_MAJOR = 22;

export interface NodeProbe {
  exists(file: string): boolean;
  realpath(file: string): string;
  /** The major version of the Node at `file`, or undefined when it does not run. */
  major(file: string): number | undefined;
}

const realProbe: NodeProbe = {
  exists: existsSync,
  realpath: (file) => realpathSync(file),
  major: (file) => {
    const run = spawnSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 5000 });
    const major = run.status === 0 ? Number(run.stdout.split('.')[0]) : NaN;
    return Number.isInteger(major) ? major : undefined;
  },
};

/**
 * An absolute path keeps a client on one Node whatever version a shell switches to; but a version
 * manager's Node disappears when that version is uninstalled. Prefer a system Node that is new enough;
 * otherwise keep this one and say what to do when it goes.
 */
export function stableNode(node: string, platform: NodeJS.Platform = process.platform, probe: NodeProbe = realProbe): { node: string; note?: string } {
  if (!VERSION_MANAGED.test(node)) return { node };
  for (const candidate of SYSTEM_NODES[platform] ?? []) {
    try {
      if (!probe.exists(candidate) || VERSION_MANAGED.test(probe.realpath(candidate))) continue;
    } catch {
      continue;
    }
    if ((probe.major(candidate) ?? 0) >= MIN_NODE_MAJOR) return { node: candidate };
  }
  return {
    node,
    note:
      `This Node (${node}) belongs to a Node version manager. Client entries keep using it when you switch versions, ` +
      `but stop working if you uninstall it (the client then reports that the command was not found): ` +
      `run \`countersign wrap <client>\` again from the Node you keep, or use the desktop app's command.`,
  };
}

/** The command as one line to paste into a shell (POSIX quoting; double quotes on Windows). */
export function formatCommand(cmd: Pick<CliCommand, 'command' | 'args'>, platform: NodeJS.Platform = process.platform): string {
  return formatWords([cmd.command, ...cmd.args], platform);
}

export function formatWords(words: string[], platform: NodeJS.Platform = process.platform): string {
  return words.map((word) => quote(word, platform)).join(' ');
}

function quote(word: string, platform: NodeJS.Platform): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  if (platform === 'win32') return `"${word.replace(/"/g, '""')}"`;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
