// A hostile server under limits tries its way out of a real bubblewrap sandbox, started through the
// broker as a person starts it (added, its launch approved, each call approved in the queue). Every
// escape runs twice: with the broker in this process as root, and with `countersign serve` run as an
// unprivileged user (setpriv, uid 65534) on a home and data folder that user owns.
// Nothing here can harm the host if an escape works: /proc/sys is written only with the value it
// already holds, mounts and writes aim at the tests' own folders, and the IPC object is the test's.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig, ServerView } from '../../shared/api.js';
import type { LimitsProfile } from '../../shared/limits.js';
import { startBroker } from '../../electron/broker/core/broker-host.js';
import { detectSandbox } from '../../electron/broker/upstream/sandbox/detect.js';
import { vaultId } from '../../electron/broker/store/key-vault.js';
import { httpApi, pendingWaiter, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { approveShown, viewOf } from '../helpers/consent.js';
import { NODE, ROOT } from '../helpers/paths.js';

const ESCAPE = `${ROOT}test/fixtures/escape-server.mjs`;
const NOBODY = 65534;
const CORE_PATTERN = '/proc/sys/kernel/core_pattern';
const SSH_KEY = 'FAKE-PRIVATE-KEY-DO-NOT-LEAK';
const CLIENT_SECRET = 'SECRET-IN-A-CLIENT-CONFIG';

type Op = { read: string } | { list: string } | { write: string; content: string } | { connect: string } | { run: string[] };
interface Outcome {
  ok: boolean;
  out: string;
  code: string | number;
}

interface Layout {
  root: string;
  home: string;
  data: string;
  keys: string;
  project: string;
  out: string;
  link: string;
}

interface Rig {
  api: TestBroker['api'];
  /** Runs the operations inside the server's sandbox, the call approved in the queue as a person would. */
  attempt(server: string, ops: Op[]): Promise<Outcome[]>;
  stop(): Promise<void>;
}

function layout(owner: number): Layout {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-escape-')));
  const home = join(root, 'home');
  const l: Layout = {
    root,
    home,
    data: join(home, '.config', 'Countersign'),
    keys: join(root, 'keys'),
    project: join(home, 'project'),
    out: join(home, 'out'),
    link: join(root, 'home-link'),
  };
  for (const d of [join(home, '.ssh'), join(home, '.cursor'), join(home, '.config'), l.project, l.out]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), SSH_KEY);
  writeFileSync(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { x: { command: CLIENT_SECRET } } }));
  writeFileSync(join(l.project, 'readme.md'), 'project file');
  writeFileSync(join(l.project, 'ro.txt'), 'original');
  symlinkSync(home, l.link);
  if (owner !== 0) chownTree(root, owner);
  return l;
}

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (!statSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), uid);
}

/** The broker's environment: nothing of root's own home, keys or clients. */
function brokerEnv(l: Layout): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: l.home, COUNTERSIGN_KEY_DIR: l.keys, COUNTERSIGN_HOME: '', LANG: 'C.UTF-8' };
}

async function rigFor(who: 'root' | 'nobody', l: Layout): Promise<Rig> {
  let stop: () => Promise<void>;
  let baseUrl: string;
  let apiToken: string;
  let mcpToken: string;
  if (who === 'root') {
    const running = await startBroker({ dataDir: l.data, env: brokerEnv(l), home: l.home, port: 0, rendererDir: join(ROOT, 'dist', 'renderer') });
    ({ baseUrl, apiToken, mcpToken } = running);
    stop = running.stop;
  } else {
    const served = await startServe(l.data, [], brokerEnv(l), {
      as: ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'],
      cleanEnv: true,
    });
    ({ baseUrl, apiToken, mcpToken } = served);
    stop = served.stop;
  }
  const api = httpApi(baseUrl, apiToken);
  const waitForPending = pendingWaiter(api);
  return {
    api,
    stop: () => stop(),
    attempt: async (server, ops) => {
      const client = new Client({ name: 'escape-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp/${server}`), { requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } } }),
      );
      try {
        const result = client.callTool({ name: 'attempt', arguments: { ops } });
        const pending = await waitForPending((c) => c.server === server);
        await api('decide', pending.id, { kind: 'allow-once' });
        const content = ((await result) as { content: Array<{ text: string }> }).content;
        return JSON.parse(content[0]!.text) as Outcome[];
      } finally {
        await client.close();
      }
    },
  };
}

async function add(rig: Rig, name: string, limits: LimitsProfile): Promise<void> {
  const config: ServerConfig = { command: NODE, args: [ESCAPE], limits };
  await rig.api('addServer', name, config);
  await approveShown(rig.api, name);
}

const ro = (...read: string[]): LimitsProfile => ({ network: 'none', filesystem: { read, write: [] }, passEnv: [] });

/** What a failed read or listing may say: never the content. */
function refused(o: Outcome | undefined, what: string): void {
  expect(o, what).toBeDefined();
  expect(o!.ok, `${what}: ${JSON.stringify(o)}`).toBe(false);
}

describe.skipIf(process.platform !== 'linux')('sandbox escapes (real bubblewrap, through the broker)', () => {
  beforeAll(async () => {
    // Not a skip: a Linux machine without a working bubblewrap fails here, with the probe's reason.
    expect(await detectSandbox()).toMatchObject({ kind: 'bubblewrap', network: true, nestedUserns: 'blocked' });
    expect(process.getuid?.()).toBe(0);
  });

  describe.each(['root', 'nobody'] as const)('started by %s', (who) => {
    const uid = who === 'root' ? 0 : NOBODY;
    let l: Layout;
    let rig: Rig;

    beforeAll(async () => {
      l = layout(uid);
      rig = await rigFor(who, l);
      await add(rig, 'project', { network: 'none', filesystem: { read: [l.project], write: [l.out] }, passEnv: [] });
      await add(rig, 'host', { network: 'none', filesystem: 'host', passEnv: [] });
      await add(rig, 'parent', ro(l.home));
      await add(rig, 'link', ro(l.link));
      await add(rig, 'tmp-root', ro(l.root));
      await add(rig, 'is-data', ro(l.data));
      await add(rig, 'home-rw', { network: 'none', filesystem: { read: [], write: [l.home] }, passEnv: [] });
    });

    afterAll(async () => {
      await rig?.stop();
      if (l) removeDir(l.root);
    });

    it('runs in a user namespace of its own, as its own uid, with no capability at all', async () => {
      for (const server of ['project', 'host']) {
        const [status, map, id] = await rig.attempt(server, [{ read: '/proc/self/status' }, { read: '/proc/self/uid_map' }, { run: ['id', '-u'] }]);
        for (const cap of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'])
          expect(status!.out, `${server} ${cap}`).toMatch(new RegExp(`^${cap}:\\s+0000000000000000$`, 'm'));
        // One id mapped, its own: not the host's whole range (the initial namespace is "0 0 4294967295").
        const [inside, , count] = map!.out.trim().split(/\s+/);
        expect([inside, count], `${server}: ${map!.out}`).toEqual([String(uid), '1']);
        expect(id!.out.trim(), server).toBe(String(uid));
      }
    });

    it('cannot write /proc/sys (the value it already holds, written back, is refused)', async () => {
      const before = readFileSync(CORE_PATTERN, 'utf8');
      try {
        for (const server of ['project', 'host']) {
          const [write, shell] = await rig.attempt(server, [
            { write: CORE_PATTERN, content: before },
            { run: ['sh', '-c', `cat ${CORE_PATTERN} > ${CORE_PATTERN} && echo WROTE`] },
          ]);
          refused(write, `${server}: write ${CORE_PATTERN}`);
          expect(['EROFS', 'EACCES']).toContain(write!.code);
          expect(shell!.ok).toBe(false);
          expect(shell!.out).not.toContain('WROTE');
          expect(shell!.out).toMatch(/Read-only file system|Permission denied/);
        }
      } finally {
        if (readFileSync(CORE_PATTERN, 'utf8') !== before) writeFileSync(CORE_PATTERN, before);
      }
      expect(readFileSync(CORE_PATTERN, 'utf8')).toBe(before);
    });

    it('cannot mount anything: a tmpfs, or the host disk from its device node', async () => {
      const disk = execFileSync('findmnt', ['-no', 'SOURCE', '/'], { encoding: 'utf8' }).trim();
      const [tmpfs] = await rig.attempt('project', [{ run: ['mount', '-t', 'tmpfs', 'none', '/tmp'] }]);
      expect(tmpfs!.ok, JSON.stringify(tmpfs)).toBe(false);
      const target = mkdtempSync(join(l.root, 'mnt-'));
      if (uid) chownSync(target, uid, uid);
      const [hostTmpfs, device, listing] = await rig.attempt('host', [
        { run: ['mount', '-t', 'tmpfs', 'none', target] },
        { run: ['mount', disk, target] },
        { list: target },
      ]);
      expect(hostTmpfs!.ok, JSON.stringify(hostTmpfs)).toBe(false);
      expect(device!.ok, `${disk}: ${JSON.stringify(device)}`).toBe(false);
      expect(listing).toMatchObject({ ok: true, out: '' });
    });

    it('cannot make a user namespace of its own (where it would hold capabilities)', async () => {
      for (const server of ['project', 'host']) {
        const [plain, mapped] = await rig.attempt(server, [
          { run: ['unshare', '-U', 'true'] },
          { run: ['unshare', '-Ur', 'sh', '-c', 'mount -t tmpfs none /tmp && echo MOUNTED'] },
        ]);
        expect(plain!.ok, `${server}: ${JSON.stringify(plain)}`).toBe(false);
        expect(mapped!.ok, `${server}: ${JSON.stringify(mapped)}`).toBe(false);
        expect(mapped!.out).not.toContain('MOUNTED');
      }
    });

    it('cannot write into a read-only grant, not even by remounting it', async () => {
      const file = join(l.project, 'ro.txt');
      const [write, remount, writable] = await rig.attempt('project', [
        { write: file, content: 'changed' },
        { run: ['sh', '-c', `mount -o remount,rw,bind ${l.project} ; mount -o remount,rw ${l.project} ; echo pwned > ${file} && echo WROTE`] },
        { write: join(l.out, 'new.txt'), content: 'written' },
      ]);
      refused(write, 'write into the read-only grant');
      expect(write!.code).toBe('EROFS');
      expect(remount!.out).not.toContain('WROTE');
      expect(readFileSync(file, 'utf8')).toBe('original');
      expect(readdirSync(l.project).sort()).toEqual(['readme.md', 'ro.txt']);
      // The control: its writable grant is writable, so the refusal above is the sandbox's.
      expect(writable).toMatchObject({ ok: true });
      expect(readFileSync(join(l.out, 'new.txt'), 'utf8')).toBe('written');
    });

    it('cannot read outside its grants (a private key in the same home), not even through a device node of the disk', async () => {
      // The way round the mounts as root: make the disk's device node, mount it, read the key from there.
      const disk = statSync(execFileSync('findmnt', ['-no', 'SOURCE', '/'], { encoding: 'utf8' }).trim());
      const [major, minor] = [Math.floor(disk.rdev / 256), disk.rdev % 256];
      const viaDisk = `mkdir -p /tmp/m && mknod /dev/d b ${major} ${minor} && mount /dev/d /tmp/m && cat /tmp/m${join(l.home, '.ssh', 'id_rsa')}`;
      const [key, home, readme, device] = await rig.attempt('project', [
        { read: join(l.home, '.ssh', 'id_rsa') },
        { list: l.home },
        { read: join(l.project, 'readme.md') },
        { run: ['sh', '-c', viaDisk] },
      ]);
      refused(key, 'read ~/.ssh/id_rsa');
      expect(key!.out).not.toContain(SSH_KEY);
      expect(device!.ok, JSON.stringify(device)).toBe(false);
      expect(device!.out).not.toContain(SSH_KEY);
      expect(home!.out.split('\n').sort()).toEqual(['out', 'project']);
      expect(readme).toMatchObject({ ok: true, out: 'project file' });
    });

    it("sees nothing of Countersign's own files inside a grant of the home folder: no data folder, token, socket, client config", async () => {
      const keyFile = join(l.keys, `${vaultId(l.data)}.key.json`);
      expect(readFileSync(keyFile, 'utf8')).toContain('"key"');
      const sock = join(l.data, 'broker.sock');
      expect(statSync(sock).isSocket()).toBe(true);
      const ops = (base: string): Op[] => [
        { list: join(base, '.config', 'Countersign') },
        { read: join(base, '.config', 'Countersign', 'mcp-token') },
        { connect: join(base, '.config', 'Countersign', 'broker.sock') },
        { read: join(base, '.cursor', 'mcp.json') },
        { read: join(base, '.ssh', 'id_rsa') },
      ];
      for (const [server, base] of [
        ['parent', l.home],
        ['link', l.link],
      ] as const) {
        const [data, token, socket, config, control] = await rig.attempt(server, ops(base));
        expect(data, server).toMatchObject({ ok: true, out: '' });
        refused(token, `${server}: mcp-token`);
        refused(socket, `${server}: broker.sock`);
        expect(['ENOENT', 'ECONNREFUSED']).toContain(socket!.code);
        refused(config, `${server}: client config`);
        expect(config!.out).not.toContain(CLIENT_SECRET);
        // The control: the grant is real; only Countersign's files are hidden in it.
        expect(control, server).toMatchObject({ ok: true, out: SSH_KEY });
      }
      // The person sees what is hidden, before and while it runs.
      const view = await viewOf(rig.api, 'parent');
      expect(view.limits?.hidden).toEqual(
        expect.arrayContaining([
          { path: l.data, what: "Countersign's data folder" },
          { path: join(l.home, '.cursor', 'mcp.json'), what: "Cursor's MCP config" },
        ]),
      );
    });

    it('hides the seal key folder under /tmp, and the data folder, from a grant of their common parent; a grant that IS the data folder shows it empty', async () => {
      const keyFile = join(l.keys, `${vaultId(l.data)}.key.json`);
      const [keys, key, data] = await rig.attempt('tmp-root', [{ list: l.keys }, { read: keyFile }, { list: l.data }]);
      expect(keys).toMatchObject({ ok: true, out: '' });
      refused(key, 'seal key');
      expect(data).toMatchObject({ ok: true, out: '' });
      const [itself, token] = await rig.attempt('is-data', [{ list: l.data }, { read: join(l.data, 'mcp-token') }]);
      expect(itself).toMatchObject({ ok: true, out: '' });
      refused(token, 'mcp-token in a grant of the data folder');
    });

    it("on the whole file system (no file limits), sees everything but Countersign's own files", async () => {
      const keyFile = join(l.keys, `${vaultId(l.data)}.key.json`);
      const [data, token, socket, keys, key, config, readme] = await rig.attempt('host', [
        { list: l.data },
        { read: join(l.data, 'mcp-token') },
        { connect: join(l.data, 'broker.sock') },
        { list: l.keys },
        { read: keyFile },
        { read: join(l.home, '.cursor', 'mcp.json') },
        { read: join(l.project, 'readme.md') },
      ]);
      expect(data).toMatchObject({ ok: true, out: '' });
      refused(token, 'mcp-token');
      refused(socket, 'broker.sock');
      expect(keys).toMatchObject({ ok: true, out: '' });
      refused(key, 'seal key');
      refused(config, 'client config');
      expect(config!.out).not.toContain(CLIENT_SECRET);
      expect(readme).toMatchObject({ ok: true, out: 'project file' });
      const view = await viewOf(rig.api, 'host');
      expect(view.limits?.running?.enforcement.hidden?.map((h) => h.path)).toEqual(
        expect.arrayContaining([l.data, l.keys, join(l.home, '.cursor', 'mcp.json')]),
      );
    });

    it("neither sees nor removes the host's SysV IPC objects", async () => {
      const id = /(\d+)/.exec(execFileSync('ipcmk', ['-M', '4096'], { encoding: 'utf8' }))![1]!;
      try {
        const key = new RegExp(`\\s${id}\\s`);
        expect(execFileSync('ipcs', ['-m'], { encoding: 'utf8' })).toMatch(key);
        for (const server of ['project', 'host']) {
          const [list, remove] = await rig.attempt(server, [{ run: ['ipcs', '-m'] }, { run: ['ipcrm', '-m', id] }]);
          expect(list!.ok).toBe(true);
          expect(list!.out, server).not.toMatch(key);
          expect(remove!.ok, `${server}: ${JSON.stringify(remove)}`).toBe(false);
          expect(execFileSync('ipcs', ['-m'], { encoding: 'utf8' })).toMatch(key);
        }
      } finally {
        execFileSync('ipcrm', ['-m', id]);
      }
    });

    it("cannot move a folder holding Countersign's files aside and put its own in place, with a writable grant above it", async () => {
      const cursor = join(l.home, '.cursor', 'mcp.json');
      const original = readFileSync(cursor, 'utf8');
      const swap = `cd ${l.home} && mv .cursor .moved ; mv .config .c2 ; mkdir -p .cursor .config/Countersign ; echo EVIL > .cursor/mcp.json ; echo EVIL > .config/Countersign/mcp-token ; echo done`;
      try {
        for (const server of ['home-rw', 'host']) {
          const [attempt, control] = await rig.attempt(server, [{ run: ['sh', '-c', swap] }, { write: join(l.home, `${server}.txt`), content: 'mine' }]);
          expect(attempt!.out, server).toContain('done');
          expect(readFileSync(cursor, 'utf8'), server).toBe(original);
          expect(readdirSync(l.home).sort(), server).toEqual(
            ['.config', '.cursor', '.ssh', 'out', 'project', ...(server === 'host' ? ['home-rw.txt', 'host.txt'] : ['home-rw.txt'])].sort(),
          );
          expect(readFileSync(join(l.data, 'mcp-token'), 'utf8')).not.toContain('EVIL');
          // The control: the grant is writable; only Countersign's files and the folders above them hold.
          expect(control, server).toMatchObject({ ok: true });
        }
      } finally {
        // Put back what an escape on older code moved, so nothing else is left broken.
        for (const [moved, name] of [
          ['.moved', '.cursor'],
          ['.c2', '.config'],
        ]) {
          try {
            execFileSync('sh', ['-c', `cd ${l.home} && [ -e ${moved} ] && rm -rf ${name} && mv ${moved} ${name} || true`]);
          } catch {
            // nothing to put back
          }
        }
      }
    });

    it('takes no relative or ~ path as a grant: nothing is saved, nothing runs', async () => {
      for (const path of ['~/project', 'project', './project', '']) {
        await expect(rig.api('setLimits', 'project', ro(path)), path).rejects.toThrow();
      }
      const view: ServerView = await viewOf(rig.api, 'project');
      expect(view.limits?.profile.filesystem).toEqual({ read: [l.project], write: [l.out] });
    });
  });
});
