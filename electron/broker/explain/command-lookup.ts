// A server's command that is not on the PATH Countersign starts servers with: said at once (on
// `servers add`, on the Servers entry, in `doctor`), with the PATH searched, instead of a spawn ENOENT
// when a client first starts it. An app started from the desktop has a short PATH: that is often why.
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { resolveCommand } from '../upstream/sandbox/runtime-paths.js';

const LAUNCHERS = ['npx', 'node', 'uvx', 'uv', 'python', 'python3', 'docker', 'podman', 'deno', 'bun', 'bunx', 'pipx', 'pnpm', 'yarn', 'java', 'go'];

/** Where version managers and package managers put commands that a desktop app's PATH lacks. */
function usualFolders(home: string): string[] {
  return [
    '/opt/homebrew/bin',
    '/usr/local/bin',
    '/opt/local/bin',
    join(home, '.local', 'bin'),
    join(home, '.cargo', 'bin'),
    join(home, '.deno', 'bin'),
    join(home, '.bun', 'bin'),
    join(home, '.volta', 'bin'),
    '/snap/bin',
  ];
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const keep = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = keep;
    }
  }
  return row[b.length]!;
}

/**
 * Why `command` would not start, with what to do; undefined when it is found (or on Windows, where
 * PATHEXT decides and the client reports it).
 */
export function commandNotFound(
  command: string,
  pathEnv: string | undefined,
  cwd: string,
  platform: NodeJS.Platform = process.platform,
  home = homedir(),
): string | undefined {
  if (platform === 'win32' || resolveCommand(command, pathEnv, cwd)) return undefined;
  if (command.includes('/')) {
    const at = resolve(cwd, command);
    return `'${command}' does not exist or is not executable (looked at ${at}${isAbsolute(command) ? '' : `, from ${cwd}`}). Give the path of a program that exists.`;
  }
  const searched = (pathEnv ?? '').split(delimiter).filter(Boolean);
  const parts = [`'${command}' was not found on the PATH Countersign starts servers with: ${searched.length ? searched.join(delimiter) : '(empty)'}.`];
  const found = usualFolders(home)
    .filter((d) => !searched.includes(d))
    .map((d) => resolveCommand(command, d, cwd))
    .find(Boolean);
  if (found) parts.push(`It is at ${found}: use that absolute path as the command.`);
  const near = LAUNCHERS.filter((l) => l !== command && distance(l, command) <= (command.length > 4 ? 2 : 1)).sort(
    (a, b) => distance(a, command) - distance(b, command),
  );
  if (near.length) parts.push(`Did you mean '${near[0]}'?`);
  parts.push(
    "An app started from the Dock, the Start menu or a desktop launcher has a short PATH (often /usr/bin:/bin:/usr/sbin:/sbin), unlike your terminal: give the command's absolute path (see: command -v " +
      command +
      ').',
  );
  return parts.join(' ');
}
