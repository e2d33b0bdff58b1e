// How a stdio server is started under its limits: the command line (bubblewrap, sandbox-exec, or the
// command as it is), its environment, and an honest account of which limits are enforced.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  isWithin,
  limitsProblems,
  NO_LIMITS,
  unenforcedLimits,
  type LimitsEnforcement,
  type LimitsProfile,
  type LimitState,
} from '../../../../shared/limits.js';
import { scrubbedEnv } from '../scrub-env.js';
import { bwrapArgs } from './bwrap-args.js';
import type { SandboxSupport } from './detect.js';
import { maskHidden, realFs, type HideSpec, type RealFs } from './hidden-paths.js';
import { limitedMounts, type FsView } from './mounts.js';
import { networkEnvPaths, programPaths, resolveCommand, runtimePaths } from './runtime-paths.js';
import { sandboxExecArgs } from './sbpl.js';
import { TREE_MARKER } from './tree-sweep.js';

export interface LaunchSpec {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface LaunchPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  enforcement: LimitsEnforcement;
  /** Read-only besides the person's paths, because the server cannot run without them. */
  runtimePaths: string[];
  /** No PID namespace holds the tree: its descendants are swept when it ends. */
  sweep: boolean;
  /** Linux without a sandbox: the environment marker the sweep also looks for. */
  treeMarker?: string;
  /** macOS: the private temp folder to remove once the server is gone. */
  scratch?: string;
}

/** The server cannot start as asked; the message says why (the command is missing, a path…). */
export class LaunchRefused extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Limits were asked that this machine cannot enforce: the server does not start (fail closed). */
export class LimitsUnenforceable extends LaunchRefused {
  constructor(limits: LimitsProfile, enforcement: LimitsEnforcement, server?: string) {
    super(unenforceableText(limits, enforcement, server), 'limits-unenforceable');
  }
}

/** Why a server with these limits does not start here, the fix, and the person's way out. */
export function unenforceableText(limits: LimitsProfile, enforcement: LimitsEnforcement, server?: string): string {
  const missing = unenforcedLimits(enforcement);
  const what = missing.map((k) => (k === 'network' ? 'no network' : 'its file limits')).join(' and ');
  const name = server ? `'${server}'` : 'the server';
  return (
    `Countersign has not started ${name}: ${what} cannot be enforced here (${enforcement.reason ?? 'no sandbox'}).` +
    (enforcement.fix ? ` Fix: ${enforcement.fix}.` : '') +
    ` Or, to run it without its limits on this machine, say so for this server in Countersign (Servers → Limits)` +
    (server ? ` or run: countersign servers limits ${server} --run-without-limits` : '') +
    '.'
  );
}

export interface PlanOptions {
  limits?: LimitsProfile;
  support: SandboxSupport;
  /** Countersign's own environment, which the scrub filters. */
  source?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  fs?: FsView;
  /** Countersign's own files, masked inside the sandbox whatever the limits say. */
  hide?: HideSpec;
  realFs?: RealFs;
  /** The person let this server run without the limits this machine cannot enforce. */
  allowUnenforced?: boolean;
  /** For the refusal's words. */
  server?: string;
}

/** How each limit stands under this sandbox: also what the server screen shows before a start. */
export function planEnforcement(limits: LimitsProfile, support: SandboxSupport): LimitsEnforcement {
  const asked = (isAsked: boolean, works: boolean): LimitState => (!isAsked ? 'no limit' : works ? 'enforced' : 'not enforced');
  const netAsked = limits.network === 'none';
  const fsAsked = limits.filesystem !== 'host';
  if (support.kind === 'none') {
    return {
      sandbox: 'none',
      reason: support.reason,
      ...(support.fix ? { fix: support.fix } : {}),
      network: asked(netAsked, false),
      filesystem: asked(fsAsked, false),
      env: 'enforced',
      processes: 'not enforced',
    };
  }
  if (support.kind === 'sandbox-exec') {
    return {
      sandbox: 'sandbox-exec',
      reason: 'macOS has no PID namespace: the process tree is ended by a descendant sweep, best effort',
      network: asked(netAsked, true),
      filesystem: asked(fsAsked, true),
      env: 'enforced',
      processes: 'not enforced',
    };
  }
  const netMissing = netAsked && !support.network;
  const caveats = support.nestedUserns === 'blocked' ? [] : [support.nestedUserns.open];
  return {
    sandbox: 'bubblewrap',
    reason: netMissing ? support.networkReason : undefined,
    ...(support.fix && (netMissing || caveats.length) ? { fix: support.fix } : {}),
    network: asked(netAsked, support.network),
    filesystem: asked(fsAsked, true),
    env: 'enforced',
    processes: 'enforced',
    ...(caveats.length ? { caveats } : {}),
  };
}

function realOrSame(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

export function planLaunch(spec: LaunchSpec, opts: PlanOptions): LaunchPlan {
  const limits = opts.limits ?? NO_LIMITS;
  const platform = opts.platform ?? process.platform;
  const problems = limitsProblems(limits);
  if (problems.length) throw new LaunchRefused(`its limits cannot be used: ${problems.join('; ')}`);
  const support = platform === 'linux' || platform === 'darwin' ? opts.support : { kind: 'none' as const, reason: `no sandbox is available on ${platform}` };
  const enforcement = planEnforcement(limits, support);
  // Fail closed: limits the person asked for and this machine cannot enforce stop the start, unless
  // the person said this server may run without them.
  if (unenforcedLimits(enforcement).length) {
    if (!opts.allowUnenforced) throw new LimitsUnenforceable(limits, enforcement, opts.server);
    enforcement.runsWithoutLimits = true;
  }
  const source = opts.source ?? process.env;
  const env = scrubbedEnv(spec.env, source, platform, limits.passEnv, limits.noPassEnv);
  const cwd = spec.cwd ?? process.cwd();
  const resolved = resolveCommand(spec.command, env.PATH, cwd);
  // Fail as spawn itself would, before any sandbox could blur the reason.
  if (platform !== 'win32' && !resolved) throw new LaunchRefused(`spawn ${spec.command} ENOENT`, 'ENOENT');
  const args = spec.args ?? [];
  const result: LaunchPlan = { command: spec.command, args, env, cwd: spec.cwd, enforcement, runtimePaths: [], sweep: support.kind !== 'bubblewrap' };
  const fsLimit = limits.filesystem;
  const hide = opts.hide ?? { paths: [] };
  const hideFs = opts.realFs ?? realFs;
  // sandbox-exec adds nothing to a server with no limits (it has no PID namespace): run it as it is.
  const unlimited = fsLimit === 'host' && limits.network !== 'none';
  if (support.kind === 'none' || (support.kind === 'sandbox-exec' && unlimited)) {
    if (support.kind === 'sandbox-exec')
      result.enforcement = {
        ...result.enforcement,
        sandbox: 'none',
        reason: 'no limits asked; macOS has no PID namespace: the process tree is ended by a descendant sweep, best effort',
      };
    if (platform === 'linux') {
      result.treeMarker = randomBytes(16).toString('hex');
      env[TREE_MARKER] = result.treeMarker;
    }
    return result;
  }
  if (fsLimit !== 'host') {
    for (const p of [...fsLimit.read, ...fsLimit.write]) if (!existsSync(p)) throw new LaunchRefused(`the path ${p} in its limits does not exist`);
    // The CA files named by the network variables it inherits, too: without them the variable is of no
    // use inside. (A path in its own configured env is the person's to add to its read paths.)
    const inherited = scrubbedEnv(undefined, source, platform, [], limits.noPassEnv);
    result.runtimePaths = [...new Set([...runtimePaths(resolved!), ...programPaths(args, cwd), ...networkEnvPaths(inherited)])];
  }
  const home = env.HOME ?? homedir();
  if (support.kind === 'sandbox-exec') {
    result.scratch = mkdtempSync(join(tmpdir(), 'countersign-server-'));
    env.TMPDIR = realOrSame(result.scratch);
    const read = fsLimit === 'host' ? ['/'] : fsLimit.read.map(realOrSame);
    const write = fsLimit === 'host' ? ['/'] : fsLimit.write.map(realOrSame);
    // SBPL matches real paths, so every spelling of a hidden path is one rule; the last rule wins.
    const hidden = hide.paths.flatMap((h) => (hideFs.real(h.path) ? [{ path: hideFs.real(h.path)!, what: h.what }] : []));
    const lentRoots = (hide.lent ?? []).flatMap((p) => hideFs.real(p) ?? []);
    // Lent back: the whole file system's packages, or only this server's own (its runtime paths).
    const runtime = result.runtimePaths.map(realOrSame);
    const lent = fsLimit === 'host' ? lentRoots : runtime.filter((p) => lentRoots.some((l) => isWithin(p, l)));
    result.enforcement = { ...result.enforcement, hidden };
    result.command = support.path;
    result.args = [
      ...sandboxExecArgs({ network: limits.network !== 'none', runtime, read, write, tmp: env.TMPDIR, hidden: hidden.map((h) => h.path), lent }),
      '--',
      resolved!,
      ...args,
    ];
    return result;
  }
  const noNetwork = limits.network === 'none' && support.network;
  const blockNestedUserns = support.nestedUserns === 'blocked';
  if (fsLimit === 'host') {
    const masked = maskHidden('host', hide, hideFs);
    result.enforcement = { ...result.enforcement, hidden: masked.hidden };
    result.command = support.path;
    result.args = [...bwrapArgs({ noNetwork, blockNestedUserns, mounts: 'host', masks: masked.masks, chdir: spec.cwd }), '--', spec.command, ...args];
    return result;
  }
  const mounts = limitedMounts({ network: !noNetwork, home, runtime: result.runtimePaths, read: fsLimit.read, write: fsLimit.write }, opts.fs);
  if (spec.cwd && !mounts.some((m) => m.kind !== 'symlink' && isWithin(spec.cwd!, m.dest))) {
    throw new LaunchRefused(`its working directory ${spec.cwd} is outside the paths its limits let it see`);
  }
  const masked = maskHidden(mounts, hide, hideFs);
  result.enforcement = { ...result.enforcement, hidden: masked.hidden };
  if (env.TMPDIR) env.TMPDIR = '/tmp';
  result.command = support.path;
  result.args = [...bwrapArgs({ noNetwork, blockNestedUserns, mounts: masked.mounts, masks: masked.masks, chdir: spec.cwd }), '--', resolved!, ...args];
  return result;
}
