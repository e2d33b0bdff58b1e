// What a server needs to see to run at all, found on disk: its command on PATH, the runtime's own
// install folder (node's prefix), and the program it was given (a script and the node_modules it loads).
// All of it is mounted read-only, and all of it is reported, so nothing is visible without being shown.
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { NETWORK_ENV } from '../../../../shared/network-env.js';

/** The absolute path `command` runs, as a shell would find it; undefined when there is none. */
export function resolveCommand(command: string, pathEnv: string | undefined, cwd: string): string | undefined {
  const executable = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/')) {
    const p = resolve(cwd, command);
    return executable(p) ? p : undefined;
  }
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (dir && isAbsolute(dir) && executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The runtime's own folder: `/opt/node/bin/node` → `/opt/node`; the command file itself besides. */
export function runtimePaths(commandPath: string): string[] {
  const target = real(commandPath);
  const dir = dirname(target);
  const prefix = basename(dir) === 'bin' ? dirname(dir) : dir;
  return [...new Set([commandPath, prefix])];
}

/** The outermost `node_modules` folder `path` is in, if any. */
function outermostNodeModules(path: string): string | undefined {
  const at = path.split('/').indexOf('node_modules');
  return at === -1
    ? undefined
    : path
        .split('/')
        .slice(0, at + 1)
        .join('/');
}

/**
 * The program a runtime is given (`node server.js`, `python -m`… is not a file and adds nothing): the
 * package it lives in, or its folder, plus every `node_modules` above it and the nearest package.json,
 * which node reads to load it.
 */
export function programPaths(args: string[], cwd: string): string[] {
  const script = args.find((a) => !a.startsWith('-'));
  if (!script) return [];
  const given = resolve(cwd, script);
  const file = real(given);
  try {
    if (!statSync(file).isFile()) return [];
  } catch {
    return [];
  }
  // Through a symlinked folder (a linked node_modules, a linked project), node opens the path as given
  // before it resolves it: both must be there.
  return [...new Set([...programPathsOf(file), ...(given === file ? [] : programPathsOf(given))])];
}

function programPathsOf(file: string): string[] {
  const paths = [outermostNodeModules(file) ?? dirname(file)];
  let pkgJson: string | undefined;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const modules = join(dir, 'node_modules');
    if (basename(dir) !== 'node_modules' && existsSync(modules)) paths.push(modules);
    if (!pkgJson && existsSync(join(dir, 'package.json'))) pkgJson = join(dir, 'package.json');
    if (dir === dirname(dir)) break;
  }
  if (pkgJson && !paths.some((p) => pkgJson!.startsWith(`${p}/`))) paths.push(pkgJson);
  return paths;
}

/**
 * The certificate files and folders the server's network variables name (NODE_EXTRA_CA_CERTS,
 * SSL_CERT_FILE…): a sandbox must let it read them, or the variable is of no use. Absolute paths that
 * exist only; SSL_CERT_DIR may list several folders.
 */
export function networkEnvPaths(env: Record<string, string>): string[] {
  const out: string[] = [];
  for (const v of NETWORK_ENV) {
    const value = v.path ? env[v.name] : undefined;
    if (!value) continue;
    for (const p of v.path === 'dir' ? value.split(delimiter) : [value]) if (isAbsolute(p) && existsSync(p)) out.push(p);
  }
  return [...new Set(out)];
}
