// The managed policy's ownership rule where it matters: Countersign (broker and CLI) run as an
// unprivileged user (setpriv, uid 65534), as the guarded agent would. A root-owned file in root-owned
// folders counts; the same file owned by that user, in a folder it can write, reached through a symlink it
// owns, or named by COUNTERSIGN_MANAGED_POLICY at a file it can write, is ignored with the warning and fix.
// Unreadable to that user (mode 000): fails closed.
import { execFile } from 'node:child_process';
import { chownSync, lchownSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedStatus } from '../../shared/api.js';
import { configure, makeDataDir, removeDir, startServe } from '../helpers/broker-harness.js';
import { AS_NOBODY, managedFolder, NOBODY, type ManagedFolder } from '../helpers/managed-folder.js';
import { CLI, NODE } from '../helpers/paths.js';

type Run = { stdout: string; stderr: string; code: number };
function csAsNobody(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const [file, ...rest] = [...AS_NOBODY, NODE, CLI, ...args];
  return new Promise((resolve) => {
    execFile(file!, rest, { env: { ...process.env, COUNTERSIGN_HOME: '', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
  });
}

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (!statSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), uid);
}

const POLICY = {
  version: 1,
  restrictions: { deny: [{ name: 'evil', reason: 'refused by security review' }], maxApprovalTimeout: { seconds: 30, reason: 'no hanging agents' } },
  catalogue: [{ name: 'Reviewed node', source: { command: [NODE, '-e', '1'] } }],
};

let m: ManagedFolder;
let dataDir: string;
// The seal's key folder, readable by nobody (the suite's shared one is root's).
let keyDir: string;
const keyEnv = () => ({ COUNTERSIGN_KEY_DIR: keyDir });

beforeAll(() => {
  m = managedFolder();
  dataDir = makeDataDir();
  keyDir = mkdtempSync(join(tmpdir(), 'cs-keys-'));
  const before = process.env.COUNTERSIGN_KEY_DIR;
  process.env.COUNTERSIGN_KEY_DIR = keyDir;
  try {
    configure(dataDir, { evil: { command: NODE, args: ['-e', ''] }, fine: { command: NODE, args: ['-e', ''] } });
  } finally {
    process.env.COUNTERSIGN_KEY_DIR = before;
  }
  chownTree(dataDir, NOBODY);
  chownTree(keyDir, NOBODY);
});
afterAll(() => {
  m.remove();
  removeDir(dataDir);
  removeDir(keyDir);
});

/** `countersign policy --json` as nobody, with the managed policy named by COUNTERSIGN_MANAGED_POLICY. */
type Effective = { managed: ManagedStatus; servers: Array<{ name: string; blockedBy?: string; status: string }> };
async function effective(file: string): Promise<Effective> {
  const run = await csAsNobody(['--data-dir', dataDir, 'policy', '--json'], { ...keyEnv(), COUNTERSIGN_MANAGED_POLICY: file });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Effective;
}

describe('managed policy, Countersign run as nobody', () => {
  it('a root-owned file in a root-owned 0755 folder counts: the broker refuses a denied server, and the restriction shows', async () => {
    const file = m.write('ok.json', POLICY);
    const broker = await startServe(dataDir, [], { ...keyEnv(), COUNTERSIGN_MANAGED_POLICY: file }, { as: AS_NOBODY });
    try {
      const status = await broker.api<{ managed: ManagedStatus }>('getStatus');
      expect(status.managed).toMatchObject({ state: 'loaded', path: file, from: 'environment' });
      // The view shows what assertCanStart refuses with (trust/launch-approval.ts, the same blockReason).
      const evil = await broker.serverWhen('evil', (v) => v.status === 'blocked');
      expect(evil.blockedBy).toBe("your organization’s managed policy denies 'evil': its name matches 'evil' (refused by security review)");
      expect(evil.managed).toEqual([`blocked: ${evil.blockedBy}`]);
    } finally {
      await broker.stop();
    }
    const shown = await effective(file);
    expect(shown.managed.restrictions).toContainEqual({
      key: 'maxApprovalTimeout',
      text: 'A call waits at most 30 s for approval. Your setting of 120 s is capped to 30 s.',
      reason: 'no hanging agents',
      capped: { from: 120, to: 30 },
    });
    expect(shown.servers.find((s) => s.name === 'evil')).toMatchObject({ status: 'blocked', blockedBy: expect.stringContaining('refused by security review') });
    expect(shown.servers.find((s) => s.name === 'fine')?.blockedBy).toBeUndefined();
    const text = (await csAsNobody(['--data-dir', dataDir, 'policy'], { ...keyEnv(), COUNTERSIGN_MANAGED_POLICY: file })).stdout;
    expect(text).toContain(`Managed policy: ${file} (managed by your organization; it outranks the team policy and your settings)`);
    expect(text).toContain('  approval timeout: 30 s (managed by your organization) — you set 120 s; capped (no hanging agents)');
    // What the catalogue says of each server: 'fine' runs another command than the entry's.
    expect(text).toContain('  fine:\n    Not in your organization’s catalogue. [managed by your organization]\n    not trusted: hints add friction only\n');
    expect(text).toContain(
      "    blocked: your organization’s managed policy denies 'evil': its name matches 'evil' (refused by security review) [managed by your organization]",
    );
    const show = await csAsNobody(['--data-dir', dataDir, 'servers', 'show', 'evil'], { ...keyEnv(), COUNTERSIGN_MANAGED_POLICY: file });
    expect(show.stdout).toContain("BLOCKED: your organization’s managed policy denies 'evil': its name matches 'evil' (refused by security review)");
  });

  it.each([
    ['owned by nobody', () => m.write('mine.json', POLICY, { uid: NOBODY }), /owned by uid 65534/],
    ['in a folder nobody owns', () => (m.folder('theirs', { uid: NOBODY }), m.write('theirs/p.json', POLICY)), /theirs' is owned by uid 65534/],
    ['in a world-writable folder', () => (m.folder('open', { mode: 0o777 }), m.write('open/p.json', POLICY)), /open' is writable by every user/],
    [
      'through a symlink nobody owns',
      () => {
        const link = join(m.dir, 'link.json');
        symlinkSync(m.write('target.json', POLICY), link);
        lchownSync(link, NOBODY, NOBODY);
        return link;
      },
      /link\.json' is owned by uid 65534/,
    ],
    [
      'named by the variable at a file nobody can write (/tmp)',
      () => {
        const dir = mkdtempSync(join(tmpdir(), 'cs-agent-'));
        chownSync(dir, NOBODY, NOBODY);
        const file = join(dir, 'loose.json');
        writeFileSync(file, JSON.stringify({ version: 1 }));
        chownSync(file, NOBODY, NOBODY);
        return file;
      },
      /'\/tmp' is writable by every user/,
    ],
    ['named by a relative path', () => 'managed-policy.json', /not absolute/],
  ])('a managed file %s is ignored, with the warning and the fix: it denies nothing', async (_what, make, why) => {
    const file = make();
    const shown = await effective(file);
    expect(shown.managed).toMatchObject({ state: 'ignored', why: expect.stringMatching(why), fix: expect.any(String) });
    expect(shown.servers.find((s) => s.name === 'evil')?.blockedBy).toBeUndefined();
    const text = await csAsNobody(['--data-dir', dataDir, 'policy'], { ...keyEnv(), COUNTERSIGN_MANAGED_POLICY: file });
    expect(text.stdout).toMatch(/is IGNORED: .*\n {2}Fix: /);
  });

  it('a root-owned file nobody cannot read (mode 000) fails closed: every server is blocked, with the reason', async () => {
    const file = m.write('sealed.json', POLICY, { mode: 0o000 });
    const shown = await effective(file);
    expect(shown.managed).toMatchObject({ state: 'broken', error: expect.stringMatching(/EACCES/) });
    for (const s of shown.servers) expect(s.blockedBy).toMatch(/your organization’s managed policy .* could not be read \(EACCES/);
  });
});
