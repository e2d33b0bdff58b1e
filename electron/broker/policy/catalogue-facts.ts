// What a configured server runs, for matching against the catalogue (catalogue-match.ts): its command
// line and limits, the package it runs (npx, an installed copy run with node, uvx, pipx, docker run)
// and, when asked, that package's content: the installed files' hash (the one pins record,
// trust/packages/package-hash.ts) and what the registry says of that exact version (VersionResolver).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ServerConfig } from '../../../shared/api.js';
import { EXACT_SEMVER, findPackageLaunch, type PackageLaunch } from '../trust/package-launch.js';
import { hashPackageDir } from '../trust/packages/package-hash.js';
import { findNpxPackage, npxCacheCopies } from '../trust/packages/npx-resolution.js';
import { asResolved, resolveExactVersion, type VersionResolver } from '../trust/version-resolver.js';
import type { LaunchFacts, PackageFacts } from './catalogue-match.js';

export interface FactsContext {
  npxCache: string;
  resolver?: VersionResolver;
  /** What the start will actually spawn (a checked npx copy runs as node on its bin). */
  spawned?: ServerConfig;
}

/**
 * Variables that load other code into the same command or fetch other packages for it: the runtimes'
 * preload and path options, the dynamic linker's, the package managers' (registry, index, cache) and
 * docker's daemon. The environment servers are started with is scrubbed of Countersign's own.
 */
const LOADER_ENV =
  /^(NODE_OPTIONS|NODE_PATH|LD_\w+|DYLD_\w+|PYTHON\w*|PIP_\w+|UV_\w+|PIPX_\w+|NPM_CONFIG_\w+|BASH_ENV|ENV|PERL5?LIB|PERL5OPT|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|DOCKER_\w+|PATH|PATHEXT|COMSPEC)$/i;

/** The facts that need no I/O beyond reading a package.json: enough to name the entry it is compared with. */
export function launchFactsNow(server: string, config: ServerConfig): LaunchFacts {
  if (!('command' in config)) return { server, remoteUrl: config.url, contentChecked: false };
  const argv = [config.command, ...(config.args ?? [])];
  const loaderEnv = [...Object.keys(config.env ?? {}), ...(config.limits?.passEnv ?? [])].filter((n) => LOADER_ENV.test(n));
  return { server, argv, limits: config.limits, package: packageOf(config), contentChecked: false, ...(loaderEnv.length ? { loaderEnv } : {}) };
}

/** Every fact, content included: run before a start, when the catalogue or a restriction needs it. */
export async function gatherLaunchFacts(server: string, config: ServerConfig, ctx: FactsContext): Promise<LaunchFacts> {
  const facts = launchFactsNow(server, config);
  const pkg = facts.package;
  if (!pkg || !('command' in config)) return { ...facts, contentChecked: true };
  const found: PackageFacts = { ...pkg };
  const registryProblem = (err: Error) => void (found.registryProblem = err.message);
  if (pkg.kind === 'npm' && pkg.version) {
    const dir = pkg.where ?? npxCopy(pkg.name, pkg.version, config, ctx);
    if (dir) {
      found.where = dir;
      found.contentHash = await hashPackageDir(dir).catch((err: Error) => void (found.contentProblem = err.message));
    } else found.contentProblem = `${pkg.name}@${pkg.version} is not installed where Countersign can check it (npx would fetch it now)`;
    const resolved = await registry(ctx, { kind: 'npx', index: 0, name: pkg.name, version: pkg.version, exact: true }).catch(registryProblem);
    found.integrity = resolved?.integrity?.[0];
  }
  if (pkg.kind === 'pypi' && pkg.version) {
    const resolved = await registry(ctx, { kind: 'uvx', index: 0, name: pkg.name, version: pkg.version, exact: true }).catch(registryProblem);
    if (resolved && resolved.version !== pkg.version) found.registryProblem = `PyPI answered for version ${resolved.version}, not ${pkg.version}`;
    else found.files = resolved?.integrity?.flatMap((i) => /^sha256-([0-9a-f]{64})\b/.exec(i)?.[1] ?? []);
  }
  return { ...facts, package: found, contentChecked: true };
}

/** Registry answers for an exact version do not change: asked once per process. */
const answers = new Map<string, Promise<ReturnType<typeof asResolved>>>();

function registry(ctx: FactsContext, launch: PackageLaunch): Promise<ReturnType<typeof asResolved>> {
  if (ctx.resolver) return ctx.resolver(launch).then(asResolved);
  const key = `${launch.kind}:${launch.name}@${launch.version}`;
  let answer = answers.get(key);
  if (!answer) {
    answer = resolveExactVersion(launch).then(asResolved);
    // A failed answer is asked again next time.
    answers.set(key, answer);
    answer.catch(() => answers.delete(key));
  }
  return answer;
}

/** The copy npx would run: from the launch folder or its cache (as pins check it), or the checked copy the start spawns. */
function npxCopy(name: string, version: string, config: Extract<ServerConfig, { command: string }>, ctx: FactsContext): string | undefined {
  const spawned = ctx.spawned && 'command' in ctx.spawned ? installedScriptPackage(ctx.spawned) : undefined;
  if (spawned?.name === name && spawned.version === version) return spawned.where;
  const launch = findPackageLaunch(config);
  const spec = launch ? config.args![launch.index]! : `${name}@${version}`;
  return (
    findNpxPackage(name, version, spec, { cwd: config.cwd ?? process.cwd(), npxCache: ctx.npxCache })?.dir ??
    npxCacheCopies(name, version, ctx.npxCache)[0]?.dir
  );
}

function packageOf(config: Extract<ServerConfig, { command: string }>): PackageFacts | undefined {
  const launch = findPackageLaunch(config);
  if (launch?.kind === 'npx') return { kind: 'npm', name: launch.name, version: launch.exact ? launch.version : undefined };
  if (launch?.kind === 'uvx') return { kind: 'pypi', name: launch.name, version: launch.exact ? launch.version : undefined };
  if (launch?.kind === 'docker') return { kind: 'docker', name: launch.name, version: launch.exact ? launch.version : undefined };
  return pipxPackage(config) ?? installedScriptPackage(config);
}

/** `pipx run [--spec name==v] name==v …`. */
function pipxPackage(config: Extract<ServerConfig, { command: string }>): PackageFacts | undefined {
  if (
    path
      .basename(config.command)
      .replace(/\.exe$/i, '')
      .toLowerCase() !== 'pipx'
  )
    return undefined;
  const args = config.args ?? [];
  if (args[0] !== 'run') return undefined;
  const specAt = args.indexOf('--spec');
  const spec = specAt !== -1 ? args[specAt + 1] : args.slice(1).find((a) => !a.startsWith('-'));
  const m = spec ? /^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?(?:==([0-9][0-9A-Za-z.+!-]*))?$/.exec(spec) : null;
  return m ? { kind: 'pypi', name: m[1]!, version: m[2] } : undefined;
}

/** `node …/node_modules/pkg/dist/index.js` (or a package's bin run directly): the package that holds the script. */
function installedScriptPackage(config: Extract<ServerConfig, { command: string }>): PackageFacts | undefined {
  const base = path
    .basename(config.command)
    .replace(/\.exe$/i, '')
    .toLowerCase();
  const isNode = base === 'node' || config.command === process.execPath;
  // Only node on the script itself: an option before it (--require, --import, -e) runs other code too.
  const script = isNode ? config.args?.[0] : config.command;
  if (!script || script.startsWith('-') || !path.isAbsolute(script) || !existsSync(script)) return undefined;
  let dir: string;
  try {
    dir = path.dirname(realpathSync(script));
  } catch {
    return undefined;
  }
  for (; ; dir = path.dirname(dir)) {
    const manifest = readManifest(path.join(dir, 'package.json'));
    // A nested package.json without a name (`{"type":"module"}` in dist/) is not the package's own.
    if (manifest && manifest.name !== undefined) {
      // Only a published package: a project's own package.json names no registry content.
      if (typeof manifest.name !== 'string' || typeof manifest.version !== 'string' || !EXACT_SEMVER.test(manifest.version)) return undefined;
      return { kind: 'npm', name: manifest.name, version: manifest.version, where: dir, installed: true };
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

function readManifest(file: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}
