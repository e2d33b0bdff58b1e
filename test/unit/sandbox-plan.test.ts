// The sandbox's command lines, mount tables and profiles, checked as text: what each platform would run.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_LIMITS, type LimitsProfile, type SandboxSupport } from '../../shared/limits.js';
import { bwrapArgs } from '../../electron/broker/upstream/sandbox/bwrap-args.js';
import { LaunchRefused, LimitsUnenforceable, planLaunch } from '../../electron/broker/upstream/sandbox/launch-plan.js';
import { limitedMounts, type FsView } from '../../electron/broker/upstream/sandbox/mounts.js';
import { programPaths } from '../../electron/broker/upstream/sandbox/runtime-paths.js';
import { sandboxExecArgs, sbplProfile } from '../../electron/broker/upstream/sandbox/sbpl.js';
import { descendantsOf, TREE_MARKER } from '../../electron/broker/upstream/sandbox/tree-sweep.js';
import { scrubbedEnv } from '../../electron/broker/upstream/scrub-env.js';
import { FILESYSTEM_SERVER, NODE, ROOT } from '../helpers/paths.js';

// A merged-/usr system: /lib and /bin are links; /lib32 and /nix are absent.
const fakeFs: FsView = {
  kind: (p) =>
    ['/lib', '/bin', '/lib64', '/sbin'].includes(p)
      ? 'symlink'
      : ['/lib32', '/libx32', '/nix/store', '/etc/pki', '/etc/crypto-policies'].includes(p)
        ? 'missing'
        : 'other',
  readlink: (p) => `usr${p}`,
};
const bwrap: SandboxSupport = { kind: 'bubblewrap', path: '/usr/bin/bwrap', network: true, nestedUserns: 'blocked' };
const ISOLATION = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--die-with-parent',
  '--new-session',
  '--cap-drop',
  'ALL',
  '--disable-userns',
];
const source = { PATH: dirname(NODE), HOME: '/home/ann', AWS_SECRET_ACCESS_KEY: 'x', GITHUB_TOKEN: 'ghp' };

function flagPairs(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));
}

describe('bubblewrap command lines', () => {
  it('gives a server with no limits its own user (no capability), PID, IPC, UTS and cgroup namespaces, a read-only /proc, and the host as it is', () => {
    const plan = planLaunch({ command: NODE, args: ['server.js'] }, { support: bwrap, source, platform: 'linux' });
    expect(plan.command).toBe('/usr/bin/bwrap');
    expect(plan.args).toEqual([
      ...ISOLATION,
      '--bind',
      '/',
      '/',
      '--dev-bind',
      '/dev',
      '/dev',
      '--proc',
      '/proc',
      '--remount-ro',
      '/proc',
      '--',
      NODE,
      'server.js',
    ]);
    expect(plan.enforcement).toEqual({
      sandbox: 'bubblewrap',
      network: 'no limit',
      filesystem: 'no limit',
      env: 'enforced',
      processes: 'enforced',
      hidden: [],
    });
    expect(plan.sweep).toBe(false);
    expect(plan.env).toEqual({ PATH: source.PATH, HOME: '/home/ann' });
  });

  it('mounts the system read-only, a private /tmp and an empty home, then the read and write paths, parents first', () => {
    const mounts = limitedMounts(
      {
        network: false,
        home: '/home/ann',
        runtime: ['/opt/node'],
        read: ['/home/ann/project', '/home/ann/project/out/keep'],
        write: ['/home/ann/project/out'],
      },
      fakeFs,
    );
    const args = bwrapArgs({ noNetwork: true, blockNestedUserns: true, mounts });
    expect(args.slice(0, 15)).toEqual([...ISOLATION, '--unshare-net', '--proc', '/proc', '--dev', '/dev']);
    expect(args.slice(-2)).toEqual(['--remount-ro', '/proc']);
    const order = mounts.map((m) => `${m.kind} ${m.dest}`);
    expect(order).toEqual(expect.arrayContaining(['symlink /bin', 'symlink /lib', 'ro /usr', 'tmpfs /tmp', 'ro /etc/ssl', 'ro /opt/node', 'tmpfs /home/ann']));
    expect(order.indexOf('tmpfs /home/ann')).toBeLessThan(order.indexOf('ro /home/ann/project'));
    expect(order.indexOf('ro /home/ann/project')).toBeLessThan(order.indexOf('rw /home/ann/project/out'));
    expect(order.indexOf('rw /home/ann/project/out')).toBeLessThan(order.indexOf('ro /home/ann/project/out/keep'));
    // Only what it needs: nothing else of /etc, no resolv.conf without the network, nothing absent.
    expect(order.filter((o) => o.includes('/etc/')).sort()).toEqual([
      'ro /etc/alternatives',
      'ro /etc/ca-certificates',
      'ro /etc/group',
      'ro /etc/hosts',
      'ro /etc/ld.so.cache',
      'ro /etc/ld.so.conf',
      'ro /etc/ld.so.conf.d',
      'ro /etc/localtime',
      'ro /etc/nsswitch.conf',
      'ro /etc/passwd',
      'ro /etc/ssl',
    ]);
    expect(order.some((o) => o.includes('/lib32') || o.includes('/nix'))).toBe(false);
    expect(flagPairs(args, '--symlink')).toEqual(['usr/bin', 'usr/lib', 'usr/lib64', 'usr/sbin']);
    const withNet = limitedMounts({ network: true, home: '/h', runtime: [], read: [], write: [] }, fakeFs).map((m) => m.dest);
    expect(withNet).toContain('/etc/resolv.conf');
  });

  it('writable wins when one path is asked both ways', () => {
    const mounts = limitedMounts({ network: false, home: '/h', runtime: [], read: ['/data'], write: ['/data/'] }, fakeFs);
    expect(mounts.filter((m) => m.dest === '/data')).toEqual([{ kind: 'rw', src: '/data/', dest: '/data' }]);
  });

  it('plans a limited filesystem server: its runtime and program read-only, its roots as asked', () => {
    const limits: LimitsProfile = { network: 'none', filesystem: { read: [ROOT], write: [] }, passEnv: ['GITHUB_TOKEN'] };
    const plan = planLaunch({ command: 'node', args: [FILESYSTEM_SERVER, ROOT] }, { limits, support: bwrap, source, platform: 'linux' });
    expect(plan.args.slice(-4)).toEqual(['--', NODE, FILESYSTEM_SERVER, ROOT]);
    expect(plan.args).toContain('--unshare-net');
    expect(plan.runtimePaths).toEqual(expect.arrayContaining([NODE, `${ROOT}node_modules`]));
    expect(flagPairs(plan.args, '--tmpfs')).toEqual(['/tmp', '/home/ann']);
    expect(plan.env.GITHUB_TOKEN).toBe('ghp');
    expect(plan.env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(plan.enforcement).toMatchObject({ network: 'enforced', filesystem: 'enforced', processes: 'enforced' });
  });

  it('refuses a server under "no network" when bubblewrap runs but cannot cut the network; with the person\'s consent it runs, saying so', () => {
    const noNet: SandboxSupport = { ...bwrap, network: false, networkReason: 'no network namespace here (EPERM)', fix: 'allow network namespaces' };
    const limits = { ...NO_LIMITS, network: 'none' as const };
    expect(() => planLaunch({ command: NODE }, { limits, support: noNet, source, platform: 'linux', server: 'web' })).toThrow(LimitsUnenforceable);
    expect(() => planLaunch({ command: NODE }, { limits, support: noNet, source, platform: 'linux', server: 'web' })).toThrow(
      "Countersign has not started 'web': no network cannot be enforced here (no network namespace here (EPERM)). Fix: allow network namespaces. Or, to run it without its limits on this machine, say so for this server in Countersign (Servers → Limits) or run: countersign servers limits web --run-without-limits.",
    );
    const plan = planLaunch({ command: NODE }, { limits, support: noNet, source, platform: 'linux', allowUnenforced: true });
    expect(plan.args).not.toContain('--unshare-net');
    expect(plan.enforcement).toMatchObject({
      network: 'not enforced',
      processes: 'enforced',
      reason: 'no network namespace here (EPERM)',
      fix: 'allow network namespaces',
      runsWithoutLimits: true,
    });
  });

  it('says in the enforcement when this bubblewrap cannot forbid nested user namespaces (before 0.8), and leaves the flag out', () => {
    const old: SandboxSupport = { ...bwrap, nestedUserns: { open: 'older than 0.8' }, fix: 'upgrade bubblewrap to 0.8 or later' };
    const plan = planLaunch({ command: NODE }, { limits: { ...NO_LIMITS, network: 'none' }, support: old, source, platform: 'linux' });
    expect(plan.args).not.toContain('--disable-userns');
    expect(plan.args).toContain('--unshare-user');
    expect(plan.enforcement).toMatchObject({ network: 'enforced', caveats: ['older than 0.8'], fix: 'upgrade bubblewrap to 0.8 or later' });
  });

  it('refuses what it cannot do, with the reason: a missing command, a working directory out of sight, bad limits', () => {
    expect(() => planLaunch({ command: 'no-such-command-here' }, { support: bwrap, source, platform: 'linux' })).toThrow(LaunchRefused);
    expect(() => planLaunch({ command: 'no-such-command-here' }, { support: bwrap, source, platform: 'linux' })).toThrow('spawn no-such-command-here ENOENT');
    const limits: LimitsProfile = { ...NO_LIMITS, filesystem: { read: [ROOT], write: [] } };
    expect(() => planLaunch({ command: NODE, cwd: '/var' }, { limits, support: bwrap, source, platform: 'linux' })).toThrow(
      'its working directory /var is outside the paths its limits let it see',
    );
    expect(() =>
      planLaunch({ command: NODE }, { limits: { ...NO_LIMITS, filesystem: { read: ['rel'], write: [] } }, support: bwrap, source, platform: 'linux' }),
    ).toThrow("'rel' is not an absolute path");
  });
});

describe('without a sandbox', () => {
  const none: SandboxSupport = { kind: 'none', reason: 'bubblewrap is not installed', fix: 'install bubblewrap' };

  it('refuses a server whose limits it cannot enforce (fail closed), with the reason and the fix', () => {
    for (const limits of [
      { ...NO_LIMITS, network: 'none' as const },
      { ...NO_LIMITS, filesystem: { read: [ROOT], write: [] } },
    ]) {
      expect(() => planLaunch({ command: NODE, args: ['s.js'] }, { limits, support: none, source, platform: 'linux' })).toThrow(
        /^Countersign has not started the server: .* cannot be enforced here \(bubblewrap is not installed\)\. Fix: install bubblewrap\./,
      );
    }
  });

  it('runs a server with no limits as it is, marks its tree for the sweep, and claims nothing', () => {
    const plan = planLaunch(
      { command: NODE, args: ['s.js'] },
      { limits: { ...NO_LIMITS, passEnv: ['GITHUB_TOKEN'] }, support: none, source, platform: 'linux' },
    );
    expect([plan.command, ...plan.args]).toEqual([NODE, 's.js']);
    expect(plan.sweep).toBe(true);
    expect(plan.env[TREE_MARKER]).toMatch(/^[0-9a-f]{32}$/);
    expect(plan.enforcement).toEqual({
      sandbox: 'none',
      reason: 'bubblewrap is not installed',
      fix: 'install bubblewrap',
      network: 'no limit',
      filesystem: 'no limit',
      env: 'enforced',
      processes: 'not enforced',
    });
  });

  it("runs a limited server as it is only with the person's consent, and says its limits are not enforced", () => {
    const plan = planLaunch(
      { command: NODE, args: ['s.js'] },
      { limits: { ...NO_LIMITS, network: 'none' }, support: none, source, platform: 'linux', allowUnenforced: true },
    );
    expect([plan.command, ...plan.args]).toEqual([NODE, 's.js']);
    expect(plan.enforcement).toMatchObject({ sandbox: 'none', network: 'not enforced', runsWithoutLimits: true });
  });

  it("never sandboxes on Windows, whatever it is told: limits there need the person's consent to run without", () => {
    expect(() =>
      planLaunch({ command: 'node.exe' }, { limits: { ...NO_LIMITS, network: 'none' }, support: bwrap, source: { Path: 'C:\\n' }, platform: 'win32' }),
    ).toThrow(LimitsUnenforceable);
    const plan = planLaunch(
      { command: 'node.exe' },
      { limits: { ...NO_LIMITS, network: 'none' }, support: bwrap, source: { Path: 'C:\\n' }, platform: 'win32', allowUnenforced: true },
    );
    expect(plan.command).toBe('node.exe');
    expect(plan.enforcement).toMatchObject({ sandbox: 'none', network: 'not enforced', reason: 'no sandbox is available on win32' });
  });
});

describe('macOS sandbox-exec profile', () => {
  const input = {
    network: false,
    runtime: ['/usr/local/Cellar/node/22'],
    read: ['/Users/ann/docs'],
    write: ['/Users/ann/out'],
    tmp: '/private/var/folders/x/T/countersign-server-1',
  };

  it('denies by default and allows only the system, the runtime, the paths and a private temp folder', () => {
    const { profile, params } = sbplProfile(input);
    const lines = profile.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['(version 1)', '(deny default)']);
    expect(lines).toContain('(allow file-read* (subpath (param "R0")) (subpath (param "R1")))');
    expect(lines).toContain('(allow file-read* file-write* (subpath (param "W0")) (subpath (param "W1")))');
    expect(params).toMatchObject({ R0: '/usr/local/Cellar/node/22', R1: '/Users/ann/docs', W0: '/Users/ann/out', W1: input.tmp });
    // Metadata of the folders on the way only, never of their siblings; no network at all.
    const meta = Object.entries(params)
      .filter(([k]) => k.startsWith('A'))
      .map(([, v]) => v);
    expect(meta).toEqual(expect.arrayContaining(['/', '/Users', '/Users/ann', '/private/var/folders/x/T']));
    expect(meta).not.toContain('/Users/ann/docs');
    expect(profile).not.toMatch(/network/);
    expect(profile).toMatch(/\(allow mach-lookup \(global-name /);
    expect(profile).not.toMatch(/\(allow mach-lookup\)/);
  });

  it('opens the network only when asked', () => {
    const { profile } = sbplProfile({ ...input, network: true });
    expect(profile).toContain('(allow network*)');
    expect(profile).toContain('(allow mach-lookup)');
  });

  it('passes paths as parameters, so no path can rewrite the profile', () => {
    const hostile = '/Users/ann/x") (allow default) ("';
    const args = sandboxExecArgs({ ...input, read: [hostile] });
    expect(args[0]).toBe('-p');
    expect(args[1]).not.toContain('allow default');
    expect(args).toContain(`R1=${hostile}`);
    expect(args.filter((a) => a === '-D').length).toBe(Object.keys(sbplProfile({ ...input, read: [hostile] }).params).length);
  });

  it('plans sandbox-exec only for a server with limits; none asked means the command as it is', () => {
    const mac: SandboxSupport = { kind: 'sandbox-exec', path: '/usr/bin/sandbox-exec' };
    const plain = planLaunch({ command: NODE }, { support: mac, source, platform: 'darwin' });
    expect(plain.command).toBe(NODE);
    expect(plain.enforcement).toMatchObject({ sandbox: 'none', processes: 'not enforced' });
    const limited = planLaunch({ command: NODE, args: ['s.js'] }, { limits: { ...NO_LIMITS, network: 'none' }, support: mac, source, platform: 'darwin' });
    try {
      expect(limited.command).toBe('/usr/bin/sandbox-exec');
      expect(limited.args.slice(-3)).toEqual(['--', NODE, 's.js']);
      expect(limited.enforcement).toMatchObject({ sandbox: 'sandbox-exec', network: 'enforced', processes: 'not enforced' });
      expect(limited.sweep).toBe(true);
    } finally {
      if (limited.scratch) rmSync(limited.scratch, { recursive: true });
    }
  });
});

describe('the pieces around it', () => {
  it('finds a node program and the node_modules it loads', () => {
    // The real folder, and the path as given when a symlink leads there (a worktree's linked node_modules).
    expect(programPaths([FILESYSTEM_SERVER, '/tmp'], '/')).toEqual([...new Set([realpathSync(`${ROOT}node_modules`), `${ROOT}node_modules`])]);
    // A script outside node_modules: its folder, the node_modules above it, and the package.json node reads.
    expect(programPaths(['fixture-server.mjs', 'tree'], `${ROOT}test/fixtures`)).toEqual([
      `${ROOT}test/fixtures`,
      `${ROOT}node_modules`,
      `${ROOT}package.json`,
    ]);
    expect(programPaths(['-m', 'pkg'], '/')).toEqual([]);
  });

  it('mounts a program reached through a symlinked folder at both places: node opens the path as given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-link-'));
    try {
      mkdirSync(join(dir, 'real'));
      writeFileSync(join(dir, 'real', 'server.js'), '');
      symlinkSync(join(dir, 'real'), join(dir, 'link'));
      const real = realpathSync(join(dir, 'real'));
      expect(programPaths([join(dir, 'link', 'server.js')], '/')).toEqual([real, join(dir, 'link')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds descendants through parent links, a setsid child included', () => {
    const procs = [
      { pid: 10, ppid: 1 },
      { pid: 11, ppid: 10 },
      { pid: 12, ppid: 11 },
      { pid: 13, ppid: 1 },
      { pid: 14, ppid: 12 },
    ];
    expect(descendantsOf(10, procs).sort()).toEqual([11, 12, 14]);
    expect(descendantsOf(13, procs)).toEqual([]);
  });

  it('lets a limited server read the CA files its inherited network variables name, and nothing its own env names', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-ca-')));
    try {
      const ca = join(dir, 'corp-ca.pem');
      const certs = join(dir, 'certs');
      const own = join(dir, 'secret.pem');
      writeFileSync(ca, 'pem');
      writeFileSync(own, 'secret');
      mkdirSync(certs);
      const env = { ...source, NODE_EXTRA_CA_CERTS: ca, SSL_CERT_DIR: `${certs}:${join(dir, 'absent')}`, REQUESTS_CA_BUNDLE: 'relative.pem' };
      const limited: LimitsProfile = { network: 'unrestricted', filesystem: { read: [], write: [] }, passEnv: [] };
      const plan = planLaunch(
        { command: NODE, args: [], env: { PIP_CERT: own } },
        { limits: limited, support: bwrap, source: env, platform: 'linux', fs: fakeFs },
      );
      expect(plan.runtimePaths).toEqual(expect.arrayContaining([ca, certs]));
      expect(plan.runtimePaths).not.toContain(own);
      expect(plan.runtimePaths.some((p) => p.includes('absent') || p.includes('relative'))).toBe(false);
      const binds = flagPairs(plan.args, '--ro-bind');
      expect(binds).toEqual(expect.arrayContaining([ca, certs]));
      expect(plan.env.NODE_EXTRA_CA_CERTS).toBe(ca);
      // Taken away: not passed, and not mounted either.
      const without = planLaunch(
        { command: NODE, args: [] },
        { limits: { ...limited, noPassEnv: ['*'] }, support: bwrap, source: env, platform: 'linux', fs: fakeFs },
      );
      expect(without.runtimePaths).not.toContain(ca);
      expect(without.env).not.toHaveProperty('NODE_EXTRA_CA_CERTS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes on the variables the person named, and no others', () => {
    expect(scrubbedEnv(undefined, { PATH: '/b', GITHUB_TOKEN: 't', OTHER: 'o' }, 'linux', ['GITHUB_TOKEN'])).toEqual({ PATH: '/b', GITHUB_TOKEN: 't' });
  });
});
