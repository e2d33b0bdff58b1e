// `countersign doctor` through the real CLI against real broken setups: no broker, a wrapped client
// whose Node (a version manager's) was uninstalled, a running broker, a sandbox that cannot start
// (Countersign itself in a sandbox without user namespaces), a policy named in settings.json by hand,
// a data folder that cannot be written, one others can write, and another user's. Each problem comes
// with its fix; --json has the documented shape; the UI's API gives the same findings.
import { execFile } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorFinding, DoctorReport } from '../../shared/doctor.js';
import { removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { CLI, MEMORY_SERVER, NODE } from '../helpers/paths.js';
import { makeUnwritable } from '../helpers/unwritable.js';

const NO_USERNS = [
  'bwrap',
  '--unshare-user',
  '--disable-userns',
  '--cap-drop',
  'ALL',
  '--die-with-parent',
  '--bind',
  '/',
  '/',
  '--dev-bind',
  '/dev',
  '/dev',
  '--proc',
  '/proc',
  '--',
];
const NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];

interface World {
  root: string;
  home: string;
  data: string;
  keys: string;
  env: NodeJS.ProcessEnv;
}

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function world(): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-doctor-')));
  cleanups.push(() => removeDir(root));
  const home = join(root, 'home');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  writeFileSync(
    join(home, '.cursor', 'mcp.json'),
    JSON.stringify({ mcpServers: { memory: { command: NODE, args: [MEMORY_SERVER] }, notes: { command: NODE, args: [MEMORY_SERVER] } } }, null, 2),
  );
  const data = join(root, 'data');
  const keys = join(root, 'keys');
  return {
    root,
    home,
    data,
    keys,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_STATE_HOME: '', COUNTERSIGN_HOME: '', COUNTERSIGN_KEY_DIR: keys, COUNTERSIGN_POLICY: '' },
  };
}

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

function cs(w: World, args: string[], opts: { node?: string; as?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const [file, ...rest] = [...(opts.as ?? []), opts.node ?? NODE, CLI, '--data-dir', w.data, ...args];
  return new Promise((resolve) => {
    execFile(file!, rest, { cwd: w.home, env: { ...w.env, ...opts.env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 });
    });
  });
}

async function doctor(w: World, opts: Parameters<typeof cs>[2] = {}): Promise<DoctorReport & { code: number }> {
  const run = await cs(w, ['doctor', '--json'], opts);
  expect(run.stdout, run.stderr).toMatch(/^\{/);
  return { ...(JSON.parse(run.stdout) as DoctorReport), code: run.code };
}

const find = (r: DoctorReport, code: string): DoctorFinding | undefined => r.findings.find((f) => f.code === code);

describe.skipIf(process.platform !== 'linux')('countersign doctor', () => {
  beforeAll(() => {
    // Not a skip: immutable folders, other users and the hardlinked Node need root here.
    expect(process.getuid?.()).toBe(0);
  });

  it('no broker, and a wrapped client whose version-managed Node is uninstalled: each with its fix', { timeout: 90_000 }, async () => {
    const w = world();
    // A Node that nvm installed (a hard link of this one, so `wrap` names its path), wrapping Cursor.
    const nvmNode = join(w.home, '.nvm', 'versions', 'node', 'v22.9.0', 'bin', 'node');
    mkdirSync(dirname(nvmNode), { recursive: true });
    linkSync(NODE, nvmNode);
    const wrap = await cs(w, ['wrap', 'cursor', '--only', 'memory', '--yes'], { node: nvmNode });
    expect(wrap.code, wrap.stderr).toBe(0);

    let r = await doctor(w);
    expect(r).toMatchObject({
      version: 1,
      countersign: expect.any(String),
      dataDir: w.data,
      checkedAt: expect.any(String),
      broker: { running: false, socket: join(w.data, 'broker.sock') },
    });
    expect(find(r, 'broker.not-running')).toMatchObject({
      level: 'warning',
      summary: `No broker is running for ${w.data}.`,
      fix: `start one: countersign serve --data-dir ${w.data} (or open the Countersign app)`,
      detail: expect.stringContaining('1 client entry starts through this Countersign'),
    });
    expect(find(r, 'client.version-manager')).toMatchObject({
      area: 'clients',
      level: 'warning',
      subject: { client: 'cursor', entry: 'memory', path: nvmNode },
      fix: expect.stringMatching(/^install a system Node 22 or later .* countersign unwrap cursor && countersign wrap cursor/),
    });
    expect(find(r, 'client.direct')).toMatchObject({
      level: 'note',
      summary: expect.stringContaining("starts 'notes' without Countersign"),
      fix: expect.stringMatching(/^countersign wrap cursor/),
    });
    expect(r.code).toBe(0);

    // The version manager removes that Node: the client can no longer start its entry.
    rmSync(join(w.home, '.nvm'), { recursive: true });
    r = await doctor(w);
    expect(find(r, 'client.node-missing')).toMatchObject({
      level: 'problem',
      summary: `Cursor's 'memory' (${join(w.home, '.cursor', 'mcp.json')}) runs ${nvmNode}, which no longer exists (a Node that was uninstalled or moved?): the client cannot start it.`,
      fix: 'countersign unwrap cursor && countersign wrap cursor (from the Node or app you keep)',
    });
    expect(r.findings[0]!.level).toBe('problem'); // problems first
    expect(r.code).toBe(1);
    const text = await cs(w, ['doctor']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^PROBLEM  clients      Cursor's 'memory' .* no longer exists/m);
    expect(text.stdout).toContain('fix: countersign unwrap cursor && countersign wrap cursor (from the Node or app you keep)');
    expect(text.stdout).toMatch(/\n1 problem, \d+ warnings?\.\n$/);

    // The fix, as printed, with the Node that stays: the problem is gone.
    const plan = /plan hash ([0-9a-f]{64})/.exec((await cs(w, ['unwrap', 'cursor', '--dry-run'])).stdout)![1]!;
    expect((await cs(w, ['unwrap', 'cursor', '--yes', '--hash', plan])).code).toBe(0);
    expect((await cs(w, ['wrap', 'cursor', '--only', 'memory', '--yes'])).code).toBe(0);
    r = await doctor(w);
    expect(find(r, 'client.node-missing')).toBeUndefined();
    expect(find(r, 'client.wrapped')).toMatchObject({ level: 'ok', summary: expect.stringContaining("'memory' goes through Countersign") });
  });

  it("a running broker: which pid and version, its socket and port; the UI's API gives the same findings", { timeout: 60_000 }, async () => {
    const w = world();
    const broker: TestBroker = await startServe(w.data, [], w.env, { cwd: w.home });
    cleanups.push(() => broker.stop());
    const r = await doctor(w);
    expect(r.broker).toMatchObject({
      running: true,
      pid: broker.child.pid,
      version: r.countersign,
      socketReachable: true,
      secretReadable: true,
      httpUrl: broker.baseUrl,
    });
    expect(find(r, 'broker.running')).toMatchObject({
      level: 'ok',
      summary: `A broker runs for ${w.data} (pid ${broker.child.pid}, version ${r.countersign}): its socket answers and this user can prove itself to it.`,
    });
    expect(find(r, 'ports.ok')).toMatchObject({ summary: `The UI and HTTP MCP endpoint listen on ${new URL(broker.baseUrl).host} (loopback only).` });
    const viaUi = await broker.api<DoctorReport>('runDoctor', { project: w.home });
    expect(viaUi.findings.map((f) => f.code).sort()).toEqual(r.findings.map((f) => f.code).sort());
  });

  it('a sandbox that cannot start: why, the fix, and the servers it stops', { timeout: 60_000 }, async () => {
    const w = world();
    expect((await cs(w, ['servers', 'add', 'offline', '--no-network', '--', NODE, MEMORY_SERVER])).code).toBe(0);
    const r = await doctor(w, { as: NO_USERNS });
    expect(find(r, 'sandbox.none')).toMatchObject({
      level: 'problem',
      summary: expect.stringMatching(/^No sandbox works here: bubblewrap cannot make a sandbox here \(bwrap: Creating new namespace failed: .*\)\.$/),
      detail: "Servers with limits do not start here: 'offline'.",
      fix: expect.stringContaining('sudo sysctl -w user.max_user_namespaces='),
    });
    expect(r.code).toBe(1);
    // Outside that sandbox it works; a server whose command is not on PATH is the problem then.
    expect((await cs(w, ['servers', 'add', 'typo', '--', 'npz'])).code).toBe(0);
    const outside = await doctor(w);
    expect(find(outside, 'sandbox.ok')).toBeDefined();
    expect(find(outside, 'server.command-not-found')).toMatchObject({
      level: 'problem',
      subject: { server: 'typo' },
      summary: expect.stringMatching(/^'typo' will not start: 'npz' was not found on the PATH Countersign starts servers with: .* Did you mean 'npx'\?/),
      fix: "countersign servers remove typo, then add it again with the command's absolute path",
    });
    expect(outside.code).toBe(1);
  });

  it('a team policy named in settings.json by hand: ignored and said so, until the person sets it in Countersign', { timeout: 60_000 }, async () => {
    const w = world();
    const policy = join(w.root, 'team-policy.json');
    writeFileSync(policy, JSON.stringify({ version: 1, servers: { memory: { command: [NODE, MEMORY_SERVER] } }, block: ['evil'] }));
    expect((await cs(w, ['servers', 'list'])).code).toBe(0); // settings.json exists
    const settingsPath = join(w.data, 'settings.json');
    const settings = JSON.parse(readFileSync(settingsPath, 'utf8')) as { settings: Record<string, unknown> };
    settings.settings.policyPath = policy;
    writeFileSync(settingsPath, JSON.stringify(settings, null, 2));
    let r = await doctor(w);
    // A hand-written path is not the person's: it is not in use, and doctor says how to confirm it.
    expect(find(r, 'policy.none')).toBeDefined();
    expect(find(r, 'policy.loaded')).toBeUndefined();
    expect(find(r, 'policy.unconfirmed')).toMatchObject({
      level: 'warning',
      fix: expect.stringContaining('countersign policy confirm'),
      subject: { path: policy },
    });

    const broker = await startServe(w.data, [], w.env, { cwd: w.home });
    cleanups.push(() => broker.stop());
    await broker.api('updateSettings', { policyPath: policy });
    r = await doctor(w);
    expect(find(r, 'policy.loaded')).toMatchObject({
      level: 'note',
      summary: `The team policy ${policy} is in use (set in Countersign): 1 command listed (others refused; none starts without you), 1 server blocked, 0 tools always asked.`,
    });
    expect(find(r, 'policy.unconfirmed')).toBeUndefined();

    writeFileSync(policy, '{ "version": 1, "servers": ');
    expect(find(await doctor(w), 'policy.broken')).toMatchObject({
      level: 'problem',
      summary: expect.stringContaining(`The team policy file ${policy} (set in Countersign) cannot be used:`),
    });
  });

  it("a data folder that cannot be written (immutable), one others can write, and another user's", { timeout: 60_000 }, async () => {
    const w = world();
    expect((await cs(w, ['servers', 'list'])).code).toBe(0);
    chmodSync(w.data, 0o777);
    let r = await doctor(w);
    expect(find(r, 'store.unsafe')).toMatchObject({
      level: 'problem',
      summary: `${w.data} can be written by any user (mode 0777).`,
      fix: `chmod go-w '${w.data}'`,
    });
    chmodSync(w.data, 0o700);

    const undo = makeUnwritable(w.data);
    cleanups.push(undo);
    r = await doctor(w);
    expect(find(r, 'data-folder.unwritable')).toMatchObject({
      level: 'problem',
      summary: expect.stringContaining(`${w.data} refuses writes though its mode (0700) allows them`),
      fix: expect.stringContaining(`sudo chattr -i ${w.data}`),
    });
    expect(find(r, 'broker.cannot-start')).toMatchObject({
      level: 'problem',
      summary: expect.stringContaining(`No broker runs for ${w.data}, and none can start here: Countersign cannot write ${w.data}/broker.lock`),
    });
    expect(find(r, 'sandbox.ok')).toBeDefined(); // the rest is still checked
    undo();
    cleanups.pop();

    chmodSync(w.root, 0o755);
    r = await doctor(w, { as: NOBODY });
    expect(find(r, 'broker.unknown')).toMatchObject({
      level: 'problem',
      summary: `This command cannot tell whether a broker runs for ${w.data}: this user (uid 65534) cannot open Countersign's data folder ${w.data}: it belongs to uid 0 (mode 0700). Run the command as the user who runs Countersign, or use a data folder of your own: --data-dir <DIR>.`,
    });
    expect(r.code).toBe(1);
  });
});
