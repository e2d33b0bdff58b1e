// Errors people can act on, through the real CLI (dist) on real broken setups: a port a real listener
// holds (a program, and another Countersign broker), a data folder that cannot be written (immutable,
// another user's, read-only for its owner, a read-only mount), a full disk (a tiny tmpfs in a mount
// namespace of its own), a server command that is not on PATH, and an error nobody expected. Never a
// stack trace; each names the path or the process, and the fix.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { runCli } from '../helpers/cli-run.js';
import { CLI, NODE } from '../helpers/paths.js';
import { makeUnwritable } from '../helpers/unwritable.js';

const NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];
const STACK = /^\s+at /m;

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

/** `countersign <args>`, optionally under another command (setpriv, unshare…), never throwing. */
function cs(args: string[], opts: { as?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const [file, ...rest] = [...(opts.as ?? []), NODE, CLI, ...args];
  return new Promise((resolve) => {
    execFile(file!, rest, { env: { ...process.env, COUNTERSIGN_HOME: '', ...opts.env }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 });
    });
  });
}

/** A shell script in a mount namespace of its own: $1 is a scratch folder, $2 node, $3 the CLI. */
function inMountNamespace(script: string, scratch: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'unshare',
      ['-m', 'sh', '-c', script, 'sh', scratch, NODE, CLI],
      { env: { ...process.env, COUNTERSIGN_HOME: '' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 });
      },
    );
  });
}

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-errors-')));
  cleanups.push(() => removeDir(dir));
  return dir;
}

describe.skipIf(process.platform !== 'linux')('errors people can act on', () => {
  beforeAll(() => {
    // Not a skip: immutable folders, mount namespaces and other users need root here.
    expect(process.getuid?.()).toBe(0);
  });

  describe('a port in use', () => {
    it('names the program that holds it and suggests --port', { timeout: 30_000 }, async () => {
      const holder: Server = createServer();
      await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
      cleanups.push(() => new Promise<void>((r) => holder.close(() => r())));
      const port = (holder.address() as { port: number }).port;
      const run = await cs(['serve', '--data-dir', scratch(), '--port', String(port), '--no-open']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`countersign: Port ${port} on 127.0.0.1 is already in use by pid ${process.pid} (`);
      expect(run.stderr).toContain('Fix: start on another port: countersign serve --port 0 (any free port) or --port <N>, or stop it (kill ');
      expect(run.stderr).not.toMatch(STACK);
    });

    it('says when the holder is another Countersign broker, and which data folder it serves', { timeout: 30_000 }, async () => {
      const other: TestBroker = await startServe(makeDataDir());
      cleanups.push(async () => {
        await other.stop();
        removeDir(other.dataDir);
      });
      const port = new URL(other.baseUrl).port;
      const run = await cs(['serve', '--data-dir', scratch(), '--port', port, '--no-open']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`is already in use by another Countersign broker (pid ${other.child.pid}, data folder ${other.dataDir}`);
      expect(run.stderr).toContain('Fix: use that broker (its UI address was printed where it started)');
      expect(run.stderr).not.toMatch(STACK);
    });
  });

  describe('a data folder that cannot be written', () => {
    it('immutable (chattr +i): names the folder and how to lift it', { timeout: 30_000 }, async () => {
      const dir = scratch();
      cleanups.push(makeUnwritable(dir));
      for (const args of [
        ['serve', '--data-dir', dir, '--no-open'],
        ['--data-dir', dir, 'servers', 'add', 'x', '--', NODE],
      ]) {
        const run = await cs(args);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(
          `Countersign cannot write ${dir}/broker.lock (in Countersign's data folder ${dir}): ${dir} refuses writes though its mode (0700) allows them: it may be immutable (chattr +i)`,
        );
        expect(run.stderr).toContain(`Fix: see lsattr -d ${dir} and, if it shows i, sudo chattr -i ${dir}`);
        expect(run.stderr).not.toMatch(STACK);
      }
    });

    it("another user's folder, as uid 65534: names the owner and says how to get a folder of one's own", { timeout: 30_000 }, async () => {
      const parent = scratch();
      chmodSync(parent, 0o755);
      const run = await cs(['serve', '--data-dir', join(parent, 'Countersign'), '--no-open'], { as: NOBODY });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `Countersign cannot write its data folder ${parent}/Countersign: ${parent} belongs to another user (uid 0, mode 0755) and this process runs as uid 65534.`,
      );
      expect(run.stderr).toContain(
        `Fix: create the data folder for this user: sudo install -d -m 700 -o "$(id -u)" ${parent}/Countersign, or use a data folder elsewhere: --data-dir <DIR>`,
      );
      expect(run.stderr).not.toMatch(STACK);
      // A broker of another user's folder: not "no broker", but whose folder it is.
      const closed = await cs(['--data-dir', parent, 'servers', 'list'], { as: NOBODY });
      chmodSync(parent, 0o700);
      const refused = await cs(['--data-dir', parent, 'servers', 'list'], { as: NOBODY });
      expect(closed.stderr).toContain(
        `Countersign cannot write ${parent}/broker.lock (in Countersign's data folder ${parent}): ${parent} belongs to another user (uid 0, mode 0755)`,
      );
      expect(refused.stderr).toContain(
        `this user (uid 65534) cannot open Countersign's data folder ${parent}: it belongs to uid 0 (mode 0700). Run the command as the user who runs Countersign`,
      );
      expect(refused.stderr).not.toMatch(STACK);
    });

    it('read-only for its own user (chmod 555), as uid 65534: says so, with chmod', { timeout: 30_000 }, async () => {
      const parent = scratch();
      chmodSync(parent, 0o755);
      const dir = join(parent, 'data');
      mkdirSync(dir);
      chownSync(dir, 65534, 65534);
      chmodSync(dir, 0o555);
      const run = await cs(['serve', '--data-dir', dir, '--no-open'], { as: NOBODY });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `Countersign cannot write ${dir}/broker.lock (in Countersign's data folder ${dir}): ${dir} is read-only (mode 0555). Fix: chmod u+w ${dir}`,
      );
      expect(run.stderr).not.toMatch(STACK);
    });

    it('on a read-only mount (a read-only bind mount in a mount namespace): says the file system is read-only', { timeout: 60_000 }, async () => {
      const dir = scratch();
      const run = await inMountNamespace('mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && "$2" "$3" serve --data-dir "$1" --no-open', dir);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `countersign: Countersign cannot write ${dir}/broker.lock (in Countersign's data folder ${dir}): it is on a read-only file system. Fix: use a data folder elsewhere: --data-dir <DIR> (or set COUNTERSIGN_HOME), or remount that disk read-write`,
      );
      expect(run.stderr).not.toMatch(STACK);
    });

    it('on a full disk (a 256 KB tmpfs, filled): says the disk is full, for serve and for a change', { timeout: 60_000 }, async () => {
      const dir = scratch();
      const script = [
        'mount -t tmpfs -o size=256k tmpfs "$1"',
        '"$2" "$3" --data-dir "$1/data" servers add first -- "$2" >/dev/null || exit 90',
        'dd if=/dev/zero of="$1/fill" bs=1k count=4096 2>/dev/null',
        '"$2" "$3" --data-dir "$1/data" servers add second -- "$2"; echo "add=$?" >&2',
        '"$2" "$3" serve --data-dir "$1/data" --no-open; echo "serve=$?" >&2',
      ].join('\n');
      const run = await inMountNamespace(script, dir);
      expect(run.stderr).toContain('add=1');
      expect(run.stderr).toContain('serve=1');
      const full = `Countersign cannot write its data folder ${dir}/data: the disk holding it is full (0 KB free). Fix: free some space on that disk (df -h ${dir}/data shows it), or use a data folder elsewhere`;
      expect(run.stderr.split(full).length - 1).toBe(2);
      expect(run.stderr).not.toMatch(STACK);
    });
  });

  it('servers add with a command not on PATH warns at once, with the PATH it searched', { timeout: 30_000 }, async () => {
    const dir = makeDataDir();
    cleanups.push(() => removeDir(dir));
    const run = await runCli(dir, 'servers', 'add', 'x', '--', 'npz');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Added 'x'.");
    expect(run.stderr).toContain(
      `countersign: warning: 'npz' was not found on the PATH Countersign starts servers with: ${process.env.PATH}. Did you mean 'npx'?`,
    );
    expect(run.stderr).toContain('An app started from the Dock, the Start menu or a desktop launcher has a short PATH');
    expect((await runCli(dir, 'servers', 'list')).stdout).toMatch(/^x\tuntrusted\tnpz\tcommand not found \(countersign doctor\)$/m);
    expect((await runCli(dir, 'servers', 'show', 'x')).stdout).toContain("It will not start: 'npz' was not found on the PATH");
    const found = await runCli(dir, 'servers', 'add', 'y', '--', NODE);
    expect(found.stderr).not.toContain('warning');
    const missingFile = await runCli(dir, 'servers', 'add', 'z', '--', './server.sh');
    expect(missingFile.stderr).toMatch(/warning: '\.\/server\.sh' does not exist or is not executable \(looked at .*\/server\.sh, from /);
  });

  it('an unexpected error prints one line and the file that holds its stack', { timeout: 30_000 }, async () => {
    const dir = makeDataDir();
    cleanups.push(() => removeDir(dir));
    mkdirSync(join(dir, 'audit.jsonl')); // a folder where the audit log should be
    const run = await runCli(dir, 'log');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `countersign: unexpected error: EISDIR: illegal operation on a directory, read. The details are in ${dir}/logs/cli-errors.log; please include them if you report it.\n`,
    );
    const logged = readFileSync(join(dir, 'logs', 'cli-errors.log'), 'utf8');
    expect(logged).toMatch(/command: log\nError: EISDIR: illegal operation on a directory, read\n\s+at /);
  });
});
