// The `countersign` launcher the app's "Install command line tool" writes, like VS Code's `code`: where it
// goes on each OS, what it says, whether its folder is on PATH, and whether a file there is ours.
// No Electron here: the flow that asks and writes is cli-install.ts.
import fs from 'node:fs';
import path from 'node:path';
import { formatCommand, type CliCommand } from '../broker/core/cli-command.js';

/** In every launcher we write: a file without it is someone else's, and is never replaced unasked. */
export const LAUNCHER_MARK = 'countersign-launcher';

export interface LauncherEnv {
  platform: NodeJS.Platform;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Whether this user can write in `dir` (tests stand in for /usr/local/bin and Windows folders). */
  canWrite?: (dir: string) => boolean;
}

export interface LauncherPlan {
  file: string;
  content: string;
  /** Whether the launcher's folder is on PATH, so `countersign` works in a new terminal. */
  onPath: boolean;
  /** Why the usual place was not used (macOS: /usr/local/bin needs an administrator). */
  fallback?: string;
  /** Another `countersign` that a shell finds first. */
  shadowedBy?: string;
  /** What is at `file` now. */
  existing: 'none' | 'ours' | 'foreign';
  /** For a foreign file: what it is, to show before asking to replace it. */
  existingWhat?: string;
}

/** The small script that runs the app's command line with the arguments it was given. */
export function launcherContent(cmd: CliCommand, platform: NodeJS.Platform): string {
  if (platform === 'win32') {
    // The app is a GUI program: a console does not show its output unless it goes through a pipe.
    // (MCP clients run the app's executable itself, never this file.)
    return [
      '@echo off',
      `rem ${LAUNCHER_MARK}: written by Countersign's "Install command line tool"; installing again replaces it.`,
      `${formatCommand(cmd, 'win32')} %* 2>&1 | findstr "^"`,
      '',
    ].join('\r\n');
  }
  return [
    '#!/bin/sh',
    `# ${LAUNCHER_MARK}: written by Countersign's "Install command line tool"; installing again replaces it.`,
    `exec ${formatCommand(cmd, platform)} "$@"`,
    '',
  ].join('\n');
}

function realCanWrite(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function pathDirs(e: LauncherEnv): string[] {
  const p = e.platform === 'win32' ? path.win32 : path.posix;
  const raw = e.env.PATH ?? e.env.Path ?? '';
  return raw
    .split(p.delimiter)
    .filter(Boolean)
    .map((d) => p.resolve(d));
}

function sameDir(a: string, b: string, platform: NodeJS.Platform): boolean {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const [x, y] = [p.resolve(a), p.resolve(b)];
  return platform === 'win32' ? x.toLowerCase() === y.toLowerCase() : x === y;
}

/** Where the launcher goes: the usual place for the OS, or a clear fallback. */
function target(e: LauncherEnv): { dir: string; name: string; fallback?: string } {
  const p = e.platform === 'win32' ? path.win32 : path.posix;
  const writableDir = e.canWrite ?? realCanWrite;
  if (e.platform === 'win32') {
    const local = e.env.LOCALAPPDATA || p.join(e.home, 'AppData', 'Local');
    // On the user's PATH by default since Windows 10; a .cmd there is found like any command.
    const apps = p.join(local, 'Microsoft', 'WindowsApps');
    if (pathDirs(e).some((d) => sameDir(d, apps, 'win32')) && writableDir(apps)) return { dir: apps, name: 'countersign.cmd' };
    return { dir: p.join(local, 'Countersign', 'bin'), name: 'countersign.cmd', fallback: `${apps} is not on your PATH.` };
  }
  const userBin = p.join(e.home, '.local', 'bin');
  if (e.platform === 'darwin') {
    if (writableDir('/usr/local/bin')) return { dir: '/usr/local/bin', name: 'countersign' };
    return {
      dir: userBin,
      name: 'countersign',
      fallback: '/usr/local/bin is not writable without an administrator, so the command goes in your own bin folder.',
    };
  }
  return { dir: userBin, name: 'countersign' };
}

export function planLauncher(cmd: CliCommand, e: LauncherEnv): LauncherPlan {
  const p = e.platform === 'win32' ? path.win32 : path.posix;
  const { dir, name, fallback } = target(e);
  const file = p.join(dir, name);
  const dirs = pathDirs(e);
  const at = dirs.findIndex((d) => sameDir(d, dir, e.platform));
  return { file, content: launcherContent(cmd, e.platform), onPath: at !== -1, fallback, shadowedBy: foundBefore(dirs, dir, e.platform), ...inspect(file) };
}

/** A `countersign` a shell would find before reaching `dir` on PATH (or at all, when `dir` is not on it). */
function foundBefore(dirs: string[], dir: string, platform: NodeJS.Platform): string | undefined {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const names = platform === 'win32' ? ['countersign.exe', 'countersign.cmd', 'countersign.bat', 'countersign.ps1'] : ['countersign'];
  for (const d of dirs) {
    if (sameDir(d, dir, platform)) return undefined;
    const found = names.map((n) => p.join(d, n)).find((f) => fs.existsSync(f));
    if (found) return found;
  }
  return undefined;
}

/** Whether `file` is absent, a launcher we wrote, or something else (which is never replaced unasked). */
export function inspect(file: string): Pick<LauncherPlan, 'existing' | 'existingWhat'> {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return { existing: 'none' };
  }
  if (st.isSymbolicLink()) return { existing: 'foreign', existingWhat: `a link to ${fs.readlinkSync(file)}` };
  if (!st.isFile()) return { existing: 'foreign', existingWhat: 'a folder or special file' };
  const head = fs.readFileSync(file, 'utf8').slice(0, 4096);
  if (head.includes(LAUNCHER_MARK)) return { existing: 'ours' };
  return {
    existing: 'foreign',
    existingWhat: `a file Countersign did not write, starting: ${JSON.stringify(head.split(/\r?\n/).slice(0, 3).join('\n').slice(0, 200))}`,
  };
}
