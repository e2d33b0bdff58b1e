// `countersign clients`, `wrap` and `unwrap` as a person types them, with no broker running (the core
// opens in-process): listing, --dry-run, the refusal to write without a terminal or --yes, idempotence,
// a file that does not parse, and unwrap.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientView } from '../../shared/clients.js';
import { makeDataDir } from '../helpers/broker-harness.js';
import { makeClientHome } from '../helpers/client-home.js';
import { CLI, NODE } from '../helpers/paths.js';

const run = promisify(execFile);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanups.splice(0)) fn();
});

function setup() {
  const h = makeClientHome(['claude-desktop', 'vscode'], false);
  const dataDir = makeDataDir();
  cleanups.push(
    () => rmSync(h.root, { recursive: true, force: true }),
    () => rmSync(dataDir, { recursive: true, force: true }),
  );
  const cs = async (...args: string[]) => {
    try {
      const r = await run(NODE, [CLI, '--data-dir', dataDir, ...args], { cwd: h.home, env: { ...process.env, HOME: h.home, XDG_CONFIG_HOME: '' } });
      return { ...r, code: 0 };
    } catch (err) {
      const e = err as { stdout: string; stderr: string; code: number };
      return { stdout: e.stdout, stderr: e.stderr, code: e.code };
    }
  };
  return { h, dataDir, cs };
}

describe('countersign clients / wrap / unwrap', () => {
  it('lists, previews, refuses without a terminal, wraps once, and unwraps to the exact bytes', async () => {
    const { h, cs } = setup();
    const file = h.userFile('claude-desktop');
    const original = readFileSync(file, 'utf8');

    const list = await cs('clients');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/Claude Desktop \(claude-desktop\)\n {2}.*claude_desktop_config\.json\n {4}NOT protected {2}filesystem/);
    // ${input:perplexity-key} is VS Code's to fill when it starts connect: wrap no longer leaves it alone.
    expect(list.stdout).toMatch(/NOT protected {2}perplexity {2}npx -y server-perplexity-ask\n/);
    expect(list.stdout).not.toContain('wrap leaves it alone');
    expect(list.stdout).toContain(
      'Not found: Claude Code, Cursor, Windsurf, Codex, Gemini CLI, Cline, Roo Code, Continue, Crush, goose, Kiro, LM Studio, opencode, Zed, Amazon Q Developer, GitHub Copilot CLI.',
    );
    expect(list.stdout).toMatch(/1 of 6 servers go through Countersign\. Protect the others with: countersign wrap claude-desktop, countersign wrap vscode/);
    const json = JSON.parse((await cs('clients', '--json')).stdout) as ClientView[];
    expect(json.filter((c) => c.found).map((c) => c.id)).toEqual(['claude-desktop', 'vscode']);
    expect(json).toHaveLength(18);
    expect(JSON.stringify(json)).not.toContain('ghp_fixtureSecretValue123');

    const dry = await cs('wrap', 'claude-desktop', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("    filesystem: added to Countersign as 'filesystem'");
    expect(dry.stdout).toContain('-        "GITHUB_PERSONAL_ACCESS_TOKEN": "••••"');
    expect(dry.stdout).not.toContain('ghp_fixtureSecretValue123');
    expect(dry.stdout).toContain('Dry run: nothing was written (2 entries would change).');
    expect(readFileSync(file, 'utf8')).toBe(original);

    const noTty = await cs('wrap', 'claude-desktop');
    expect(noTty.code).toBe(1);
    expect(noTty.stderr).toContain('this is not a terminal, so Countersign cannot ask. Run again with --yes');
    expect(readFileSync(file, 'utf8')).toBe(original);

    const wrap = await cs('wrap', 'claude-desktop', '--yes', '--only', 'github');
    expect(wrap.code).toBe(0);
    expect(wrap.stdout).toContain('countersign servers approve github');
    expect(wrap.stdout.trimEnd().split('\n').at(-1)).toBe(
      'To undo: countersign unwrap claude-desktop (puts back your file as it was, keeping edits you make meanwhile).',
    );
    expect((await cs('wrap', 'claude-desktop', '--yes', '--only', 'github')).stdout).toContain('Nothing to change.');
    expect((await cs('clients')).stdout).toMatch(/protected {6}github {6}through Countersign's 'github'/);

    // Unwrapping takes Countersign out of the client's way: without a terminal, --yes needs the plan hash printed.
    const shown = await cs('unwrap', 'claude-desktop');
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('nothing changed: there is no terminal to ask you on');
    expect((await cs('unwrap', 'claude-desktop', '--yes')).code).toBe(1);
    expect((await cs('unwrap', 'claude-desktop', '--yes', '--hash', '0'.repeat(64))).code).toBe(1);
    expect(readFileSync(file, 'utf8')).not.toBe(original);
    const plan = /plan hash ([0-9a-f]{64})/.exec(shown.stdout)![1]!;
    const unwrap = await cs('unwrap', 'claude-desktop', '--yes', '--hash', plan);
    expect(unwrap.code, unwrap.stderr).toBe(0);
    expect(unwrap.stdout).toContain('back to its exact bytes from before the wrap');
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect((await cs('unwrap', 'claude-desktop', '--yes')).stdout).toContain('Nothing to unwrap');
    const log = await cs('log');
    expect(log.stdout).toMatch(/claude-desktop\/wrap {2}allow by person {2}ok/);
    expect(log.stdout).toMatch(/claude-desktop\/unwrap {2}allow by person {2}ok/);
    expect(log.stdout).not.toContain('ghp_fixtureSecretValue123');
  });

  it('will not touch a file it cannot parse, and says where', async () => {
    const { h, cs } = setup();
    const file = h.userFile('claude-desktop');
    writeFileSync(file, '{ "mcpServers": { "a": { "command": "x" } }');
    const r = await cs('wrap', 'claude-desktop', '--yes');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Countersign leaves this file alone: it cannot read it (line 1, column 44: a closing brace is expected).');
    expect(readFileSync(file, 'utf8')).toBe('{ "mcpServers": { "a": { "command": "x" } }');
    const bad = await cs('wrap', 'nope');
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("unknown client 'nope'");
  });
});
