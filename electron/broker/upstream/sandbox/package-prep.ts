// `npx` fetches its package when it starts, which a server with no network, or without the person's
// ~/.npm, cannot do. So, before the sandbox: install the exact version once into a folder of its own
// (inside a sandbox of its own that may only write there and to npm's cache), then run its bin from
// that folder, offline, read-only. The exact version comes from the launch itself (a content pin) or
// from a resolver; content pins (trust/package-launch.ts) and this meet at `PackagePreparer`.
// `uvx` and `docker` launches are refused under limits: see why in `prepareForLimits`.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LimitsProfile, SandboxSupport } from '../../../../shared/limits.js';
import { findPackageLaunch, type PackageLaunch } from '../../trust/package-launch.js';
import { asResolved, type VersionResolver } from '../../trust/version-resolver.js';
import type { HideSpec } from './hidden-paths.js';
import { LaunchRefused, planLaunch, type LaunchSpec } from './launch-plan.js';
import { resolveCommand } from './runtime-paths.js';

/** Makes a package launch runnable offline; the spawn path asks it only for servers under limits. */
export interface PackagePreparer {
  prepare(spec: LaunchSpec, launch: PackageLaunch): Promise<LaunchSpec>;
}

export interface NpmPreparerOptions {
  /** Where prepared packages live, one folder per name@version. */
  root: string;
  support: SandboxSupport | Promise<SandboxSupport>;
  /** npm's download cache, writable while installing (default: ~/.npm, as npx uses). */
  cache?: string;
  /** Finds the exact version of a launch that names none; without it such a launch is refused. */
  resolve?: VersionResolver;
  source?: NodeJS.ProcessEnv;
  /** Countersign's own files, hidden from the install (its scripts are the package's code). */
  hide?: () => HideSpec;
}

const INSTALL_TIMEOUT_MS = 5 * 60_000;

/** npx's rule for which bin a package runs: the only one, or the one named like the package. */
export function binOf(pkg: { name?: string; bin?: string | Record<string, string> }, wanted?: string): string {
  const bin = pkg.bin;
  if (typeof bin === 'string') return bin;
  const entries = Object.entries(bin ?? {});
  const unscoped = (pkg.name ?? '').replace(/^@[^/]+\//, '');
  const hit = wanted ? entries.find(([k]) => k === wanted) : entries.length === 1 ? entries[0] : entries.find(([k]) => k === unscoped);
  if (!hit) throw new LaunchRefused(`${pkg.name ?? 'the package'} has no bin ${wanted ? `named ${wanted}` : 'to run'}`);
  return hit[1];
}

/** The arguments npx would hand the package's bin, and which bin (with `-p`). */
function npxTail(args: string[], launch: PackageLaunch): { bin?: string; rest: string[] } {
  if (args.some((a) => a === '-c' || a === '--call')) throw new LaunchRefused('an npx -c launch cannot be prepared for a sandbox');
  const viaPackageFlag = args[launch.index - 1] === '-p' || args[launch.index - 1] === '--package';
  if (!viaPackageFlag) return { rest: args.slice(launch.index + 1) };
  const after = args.slice(launch.index + 1);
  const at = after.findIndex((a) => !a.startsWith('-'));
  if (at === -1) return { rest: [] };
  return { bin: after[at], rest: after.slice(at + 1) };
}

/** The folder a package version is prepared in, under the preparer's root. */
export function preparedFolder(root: string, name: string, version: string): string {
  return join(root, `${name.replace('/', '+')}@${version}`);
}

export class NpmPreparer implements PackagePreparer {
  constructor(private readonly opts: NpmPreparerOptions) {}

  get root(): string {
    return this.opts.root;
  }

  /** Installs name@version into its own folder unless it is there; returns the folder's node_modules. */
  async ensureInstalled(name: string, version: string): Promise<string> {
    const folder = preparedFolder(this.opts.root, name, version);
    if (!existsSync(join(folder, 'node_modules', name, 'package.json'))) await this.install(`${name}@${version}`, folder);
    return join(folder, 'node_modules');
  }

  async prepare(spec: LaunchSpec, launch: PackageLaunch): Promise<LaunchSpec> {
    const version = launch.exact ? launch.version! : this.opts.resolve ? asResolved(await this.opts.resolve(launch)).version : undefined;
    if (!version)
      throw new LaunchRefused(`pin ${launch.name} to an exact version first: under limits its package is installed before the sandbox, and run offline`);
    const pkgDir = join(await this.ensureInstalled(launch.name, version), launch.name);
    const { bin, rest } = npxTail(spec.args ?? [], launch);
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { name?: string; bin?: string | Record<string, string> };
    const script = realpathSync(join(pkgDir, binOf(pkg, bin)));
    const firstLine = readFileSync(script, 'utf8').split('\n', 1)[0] ?? '';
    // A node bin runs under the same node as npx would have used; anything else by its own #! line.
    if (firstLine.startsWith('#!') && !firstLine.includes('node')) return { ...spec, command: script, args: rest };
    const node = resolveCommand('node', this.opts.source?.PATH ?? process.env.PATH, spec.cwd ?? process.cwd()) ?? process.execPath;
    return { ...spec, command: node, args: [script, ...rest] };
  }

  /** `npm install` into a fresh folder, sandboxed where it can be: it writes only there and to npm's cache. */
  private async install(pkgSpec: string, folder: string): Promise<void> {
    const source = this.opts.source ?? process.env;
    const node = resolveCommand('node', source.PATH, '/') ?? process.execPath;
    const npm = resolveCommand('npm', source.PATH, '/');
    if (!npm) throw new LaunchRefused(`npm is needed to prepare ${pkgSpec}, and it is not on PATH`);
    const npmCli = realpathSync(npm);
    const cache = this.opts.cache ?? join(homedir(), '.npm');
    const staging = `${folder}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    mkdirSync(cache, { recursive: true });
    const npmrc = join(source.HOME ?? homedir(), '.npmrc');
    // Registry and auth settings, as npx would use them. The proxy, registry and CA variables (and the
    // CA files they name) pass by default, as to every server (scrub-env.ts, runtime-paths.ts).
    const read = [npmrc].filter((p) => existsSync(p));
    const limits: LimitsProfile = { network: 'unrestricted', filesystem: { read, write: [staging, cache] }, passEnv: [] };
    const args = [
      npmCli,
      'install',
      '--prefix',
      staging,
      '--cache',
      cache,
      '--prefer-offline',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      pkgSpec,
    ];
    // These limits are Countersign's own care, not the person's: where no sandbox works, the install
    // runs as npx would (a server under unenforceable limits is refused before it gets here).
    const plan = planLaunch(
      { command: node, args, cwd: staging },
      { limits, support: await this.opts.support, source, hide: hideFrom(this.opts.hide?.(), staging), allowUnenforced: true },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        execFile(plan.command, plan.args, { env: plan.env, cwd: plan.cwd, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (err, _out, stderr) => {
          if (err)
            reject(
              new LaunchRefused(`could not install ${pkgSpec} before the sandbox: ${String(stderr).trim().split('\n').slice(-3).join(' ') || err.message}`),
            );
          else resolve();
        });
      });
      mkdirSync(dirname(folder), { recursive: true });
      renameSync(staging, folder);
    } finally {
      rmSync(staging, { recursive: true, force: true });
      if (plan.scratch) rmSync(plan.scratch, { recursive: true, force: true });
    }
  }
}

/** What the install may not see; its own staging folder (in the data folder) it may write. */
function hideFrom(hide: HideSpec | undefined, staging: string): HideSpec | undefined {
  return hide && { ...hide, lentWritable: [...(hide.lentWritable ?? []), staging] };
}

/**
 * The launch a server under limits really runs. `npx`: prepared (above). `uvx`: refused, because uv
 * keeps its lock and its environments in a cache it must write even offline, and a shared writable
 * cache would let one server change another's code; it has not been built or tested (no uv here).
 * `docker`: refused, because the container runs in the docker daemon, outside any sandbox we make.
 */
export async function prepareForLimits(spec: LaunchSpec, limits: LimitsProfile | undefined, preparer?: PackagePreparer): Promise<LaunchSpec> {
  if (!limits || (limits.network !== 'none' && limits.filesystem === 'host')) return spec;
  const launch = findPackageLaunch({ command: spec.command, args: spec.args });
  if (!launch) return spec;
  if (launch.kind === 'uvx') throw new LaunchRefused('a uvx launch cannot run under network or file limits yet: run the installed tool by its path instead');
  if (launch.kind === 'docker')
    throw new LaunchRefused(
      "a docker launch runs in the docker daemon, outside any limits Countersign could set: use docker's own --network none and volume options",
    );
  if (!preparer) throw new LaunchRefused(`the npx package ${launch.name} must be installed before the sandbox, and nothing here can prepare it`);
  return preparer.prepare(spec, launch);
}
