// Limits stored with the server's consent, enforced by real bubblewrap on the real launch path, and fed
// to the decision: only what the sandbox enforces removes friction; a claim it contradicts is flagged.
// Real servers (server-filesystem, the tree fixture), real SDK clients, a real port on the host.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, ServerConfig } from '../../shared/api.js';
import { NO_LIMITS, type LimitsProfile } from '../../shared/limits.js';
import { detectSandbox } from '../../electron/broker/upstream/sandbox/detect.js';
import { pollUntil } from '../helpers/patience.js';
import { approveShown, trustShown, viewOf } from '../helpers/consent.js';
import { startInProcess, type InProcess } from '../helpers/in-process.js';
import { removeDir } from '../helpers/broker-harness.js';
import { FILESYSTEM_SERVER, FIXTURE, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

const isCall = (e: AuditEntry): boolean => e.kind === 'call' || e.kind === undefined;

async function lastCall(ip: InProcess, server: string, tool: string): Promise<AuditEntry> {
  const log = await pollUntil(
    () => ip.log({ server, tool }),
    (l) => l.some(isCall),
    `a logged call of ${tool}`,
  );
  return log.find(isCall)!;
}

async function addApproved(ip: InProcess, name: string, config: ServerConfig, trusted: boolean): Promise<void> {
  await ip.api.addServer(name, config);
  await approveShown(ip.call, name);
  if (trusted) await trustShown(ip.call, name);
}

describe.skipIf(process.platform !== 'linux')('limits per server, through the broker', () => {
  let scratch: string;
  let host: Server;
  let url = '';
  let hits = 0;

  beforeAll(async () => {
    // Not a skip: a Linux machine without a working bubblewrap fails here, with the probe's reason.
    expect(await detectSandbox()).toMatchObject({ kind: 'bubblewrap', network: true });
    scratch = mkdtempSync(join(tmpdir(), 'cs-limits-'));
    host = createServer((_req, res) => {
      hits += 1;
      res.end('hello from the host');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(host.address() as { port: number }).port}/`;
  });

  afterAll(async () => {
    await new Promise((r) => host?.close(r));
    removeDir(scratch);
  });

  it('a trusted filesystem server under an enforced read-only mount: reads show "read-only: enforced", a write is flagged, fails at the OS, and the client gets the server\'s own error', async () => {
    const dir = mkdtempSync(join(scratch, 'ro-'));
    writeFileSync(join(dir, 'notes.txt'), 'original');
    const limits: LimitsProfile = { network: 'none', filesystem: { read: [dir], write: [] }, passEnv: [] };
    let stderr = '';
    const ip = await startInProcess({ onServerStderr: (_s, t) => (stderr += t) });
    try {
      await addApproved(ip, 'files', { command: NODE, args: [FILESYSTEM_SERVER, dir], limits }, true);
      const view = await viewOf(ip.call, 'files');
      expect(view.launch.limits).toEqual(limits);
      expect(view.limits).toMatchObject({
        profile: limits,
        enforcement: { sandbox: 'bubblewrap', network: 'enforced', filesystem: 'enforced', processes: 'enforced' },
      });
      expect(view.limits!.badge).toBe(`no network · read-only ${dir} (enforced)`);

      const client = await ip.connect('files');
      expect(
        textOf(
          await callTool(client, 'read_text_file', { path: join(dir, 'notes.txt') }).catch((e) => {
            throw new Error(`${e} ${stderr}`);
          }),
        ),
      ).toBe('original');
      const read = await lastCall(ip, 'files', 'read_text_file');
      expect(read).toMatchObject({ decision: 'allow', decidedBy: 'policy', limits: `no network · read-only ${dir} (enforced)` });
      expect(read.reasons).toContain('read-only-enforced');
      expect(read.reasons).not.toContain('trusted-read-only');
      void stderr;
      expect((await viewOf(ip.call, 'files')).limits!.running?.badge).toBe(`no network · read-only ${dir} (enforced)`);

      const writing = callTool(client, 'write_file', { path: join(dir, 'notes.txt'), content: 'changed' });
      const pending = await ip.waitForPending((c) => c.tool === 'write_file', 10_000);
      expect(pending.reasons.map((r) => r.code)).toContain('write-on-read-only');
      expect(pending.limits).toBe(`no network · read-only ${dir} (enforced)`);
      await ip.api.decide(pending.id, { kind: 'allow-once' });
      const result = await writing;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/EROFS|read-only file system/i);
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('original');
      expect(readdirSync(dir)).toEqual(['notes.txt']);
      expect(await lastCall(ip, 'files', 'write_file')).toMatchObject({
        decision: 'allow',
        decidedBy: 'person',
        limits: `no network · read-only ${dir} (enforced)`,
      });
    } finally {
      await ip.close();
    }
  });

  it("offers limits, never applies them: the filesystem server's directories as its roots, no network when every tool says closed-world", async () => {
    const dir = mkdtempSync(join(scratch, 'offer-'));
    const ip = await startInProcess();
    try {
      await addApproved(ip, 'files', { command: NODE, args: [FILESYSTEM_SERVER, dir] }, false);
      await addApproved(ip, 'closed', { command: NODE, args: [FIXTURE, 'crash'] }, false);
      await ip.broker.probe('closed');
      const files = (await viewOf(ip.call, 'files')).limits!;
      expect(files.profile).toEqual(NO_LIMITS);
      expect(files.badge).toBe('no limits');
      expect(files.offer).toEqual({
        limits: { network: 'unrestricted', filesystem: { read: [], write: [dir] }, passEnv: [] },
        why: ['a filesystem server: the directories in its arguments become its only roots'],
      });
      const closed = (await viewOf(ip.call, 'closed')).limits!;
      expect(closed.offer).toEqual({
        limits: { ...NO_LIMITS, network: 'none' },
        why: ['every tool says it does not reach the outside world (openWorldHint: false)'],
      });
      // Nothing was applied on its own; accepting the offer only takes away, so it applies at once.
      expect((await viewOf(ip.call, 'files')).launch.limits).toBeUndefined();
      await ip.api.setLimits('files', files.offer!.limits);
      const after = await viewOf(ip.call, 'files');
      expect(after.launch).toMatchObject({ approved: true, limits: files.offer!.limits });
      expect(after.limits!.offer).toBeUndefined();
    } finally {
      await ip.close();
    }
  });

  it('loosening needs consent again (bound to the launch shown); tightening applies at once and restarts the server under it', async () => {
    const dir = mkdtempSync(join(scratch, 'consent-'));
    const readOnly: LimitsProfile = { network: 'none', filesystem: { read: [dir], write: [] }, passEnv: [] };
    const writable: LimitsProfile = { ...readOnly, filesystem: { read: [], write: [dir] } };
    const ip = await startInProcess();
    try {
      await addApproved(ip, 'files', { command: NODE, args: [FILESYSTEM_SERVER, dir], limits: readOnly }, false);
      const shown = (await viewOf(ip.call, 'files')).launch.hash;

      // Looser, without what the person saw: saved, and the command waits for approval again.
      await ip.api.setLimits('files', writable);
      let v = await viewOf(ip.call, 'files');
      expect(v.limits!.profile).toEqual(writable);
      expect(v.launch).toMatchObject({ approved: false, limits: writable });
      expect(v.status).toBe('needs-consent');
      await expect(ip.connect('files')).rejects.toThrow(/waits for your approval/);

      // Back to read-only: exactly the launch approved before, so it is approved again.
      await ip.api.setLimits('files', readOnly);
      expect((await viewOf(ip.call, 'files')).launch).toMatchObject({ approved: true, hash: shown });

      // Looser with a stale hash: refused, nothing changed.
      await expect(ip.api.setLimits('files', writable, shown.replace(/^./, shown[0] === 'a' ? 'b' : 'a'))).rejects.toThrow(/changed after it was shown/);
      expect((await viewOf(ip.call, 'files')).limits!.profile).toEqual(readOnly);

      // Looser with the launch the person saw: approved with these limits, and they hold.
      const client = await ip.connect('files');
      await ip.api.setLimits('files', writable, (await viewOf(ip.call, 'files')).launch.hash);
      v = await viewOf(ip.call, 'files');
      expect(v.launch).toMatchObject({ approved: true, limits: writable });
      // The session that ran under the old limits was ended with them.
      await expect(callTool(client, 'list_allowed_directories', {})).rejects.toThrow();
      const again = await ip.connect('files');
      const write = callTool(again, 'write_file', { path: join(dir, 'new.txt'), content: 'written' });
      await ip.api.decide((await ip.waitForPending((c) => c.tool === 'write_file', 10_000)).id, { kind: 'allow-once' });
      expect((await write).isError).toBeFalsy();
      expect(readFileSync(join(dir, 'new.txt'), 'utf8')).toBe('written');

      // Tighter: applies at once, no consent, the approval carries over.
      await ip.as('cli').setLimits('files', readOnly);
      v = await viewOf(ip.call, 'files');
      expect(v.launch).toMatchObject({ approved: true, limits: readOnly });
      const log = await ip.log({ server: 'files' });
      expect(log.map((e) => e.detail)).toEqual(
        expect.arrayContaining([
          `limits loosened: its command waits for approval again: no network · writes ${dir}`,
          `limits loosened, with consent: no network · writes ${dir}`,
          `limits tightened, applied at once: no network · read-only ${dir}`,
        ]),
      );
      expect(log.find((e) => e.actor === 'cli')).toMatchObject({
        kind: 'launch',
        detail: `limits tightened, applied at once: no network · read-only ${dir}`,
        decision: 'deny',
      });
    } finally {
      await ip.close();
    }
  });

  it('network enforced off: closed world in fact, the exfiltration guard does not ask, an open-world claim is flagged, and the connection really fails', async () => {
    const ip = await startInProcess();
    try {
      await addApproved(ip, 'offline', { command: NODE, args: [FIXTURE, 'tree'], limits: { ...NO_LIMITS, network: 'none' } }, true);
      await addApproved(ip, 'online', { command: NODE, args: [FIXTURE, 'tree'] }, true);
      const before = hits;
      const offline = await ip.connect('offline');
      // A closed-world read first: the session has read local data.
      await callTool(offline, 'escape', {});
      const result = await callTool(offline, 'fetch_url', { url });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^fetch failed: (ECONNREFUSED|ENETUNREACH)/);
      expect(hits).toBe(before);
      const entry = await lastCall(ip, 'offline', 'fetch_url');
      expect(entry).toMatchObject({ decision: 'allow', decidedBy: 'policy', limits: 'no network (enforced)' });
      expect(entry.reasons).toContain('open-world-without-network');
      expect(entry.reasons).not.toContain('exfiltration-risk');
      expect(entry.reasons).not.toContain('open-world');

      // The control: open-world with a network stays guarded as before.
      const online = await ip.connect('online');
      await callTool(online, 'escape', {});
      const asking = callTool(online, 'fetch_url', { url });
      const pending = await ip.waitForPending((c) => c.server === 'online' && c.tool === 'fetch_url', 10_000);
      expect(pending.reasons.map((r) => r.code)).toContain('exfiltration-risk');
      expect(pending.limits).toBeUndefined();
      await ip.api.decide(pending.id, { kind: 'allow-once' });
      expect(textOf(await asking)).toBe('status 200: hello from the host');
    } finally {
      await ip.close();
    }
  });

  it('without a sandbox, a server under limits does not start (audited, with the fix) until the person lets it run without them; then a limit not enforced removes no friction', async () => {
    const none = detectSandbox({ bwrapPaths: ['/nonexistent/bwrap'] });
    const ip = await startInProcess({ sandbox: none });
    try {
      await addApproved(ip, 'offline', { command: NODE, args: [FIXTURE, 'tree'], limits: { ...NO_LIMITS, network: 'none' } }, true);
      const v = await viewOf(ip.call, 'offline');
      expect(v.limits!.enforcement).toMatchObject({ sandbox: 'none', network: 'not enforced', processes: 'not enforced' });
      expect(v.limits!.badge).toBe('no network (not enforced: network: bubblewrap is not installed (looked for /nonexistent/bwrap))');
      expect(v.limits!.unenforced).toMatchObject({
        reason: 'bubblewrap is not installed (looked for /nonexistent/bwrap)',
        fix: expect.stringContaining('apt-get install bubblewrap'),
        runsWithoutLimits: false,
      });
      expect((await ip.api.getStatus()).sandbox).toMatchObject({
        kind: 'none',
        reason: expect.stringContaining('not installed'),
        fix: expect.stringContaining('apt-get install bubblewrap'),
      });
      // Fail closed: refused with the reason and the fix, nothing started, the refusal in the log.
      await expect(ip.connect('offline')).rejects.toThrow(/no network cannot be enforced here .* Fix: install bubblewrap/);
      const refusals = await ip.log({ server: 'offline' });
      expect(
        refusals.find(
          (e) => e.kind === 'launch' && e.decision === 'deny' && /^not started: its limits \(no network\) cannot be enforced here/.test(e.detail ?? ''),
        ),
      ).toMatchObject({ actor: 'countersign' });
      expect((await viewOf(ip.call, 'offline')).lastError).toMatch(/cannot be enforced here/);
      // Only a person gives it, bound to the launch they saw.
      await expect(ip.as('client').setRunWithoutLimits('offline', true, v.launch.hash)).rejects.toThrow(/Only you can/);
      await expect(ip.api.setRunWithoutLimits('offline', true, 'f'.repeat(64))).rejects.toThrow(/changed after it was shown to you/);
      await ip.api.setRunWithoutLimits('offline', true, v.launch.hash);
      expect((await viewOf(ip.call, 'offline')).limits!.unenforced).toMatchObject({ runsWithoutLimits: true });
      expect((await ip.log({ server: 'offline' })).find((e) => e.kind === 'launch' && /^may run without its limits/.test(e.detail ?? ''))).toMatchObject({
        actor: 'browser',
        decidedBy: 'person',
      });
      const client = await ip.connect('offline');
      await callTool(client, 'escape', {});
      const asking = callTool(client, 'fetch_url', { url });
      const pending = await ip.waitForPending((c) => c.tool === 'fetch_url', 10_000);
      // Still guarded: nothing stops this process from reaching the network.
      expect(pending.reasons.map((r) => r.code)).toEqual(expect.arrayContaining(['exfiltration-risk', 'open-world']));
      expect(pending.reasons.map((r) => r.code)).not.toContain('open-world-without-network');
      expect(pending.limits).toMatch(/^no network \(not enforced/);
      await ip.api.decide(pending.id, { kind: 'allow-once' });
      expect(textOf(await asking)).toBe('status 200: hello from the host');
      expect((await ip.log({ server: 'offline' })).some((e) => e.kind === 'launch' && /^started without its limits/.test(e.detail ?? ''))).toBe(true);
      // Taken back: the process that ran without its limits ends, and the next start is refused again.
      expect(ip.broker.sessionsOf('offline')).toBe(1);
      await ip.api.setRunWithoutLimits('offline', false);
      expect(ip.broker.sessionsOf('offline')).toBe(0);
      await expect(callTool(client, 'ok', {})).rejects.toThrow();
      await expect(ip.connect('offline')).rejects.toThrow(/cannot be enforced here/);
      // A change of its command or limits needs the consent again.
      await ip.api.setRunWithoutLimits('offline', true, (await viewOf(ip.call, 'offline')).launch.hash);
      await ip.api.setLimits('offline', { ...NO_LIMITS, network: 'none', filesystem: { read: [scratch], write: [] } });
      expect((await viewOf(ip.call, 'offline')).limits!.unenforced).toMatchObject({ runsWithoutLimits: false });
    } finally {
      await ip.close();
    }
  });
});
