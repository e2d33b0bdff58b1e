// `countersign policy check FILE`: a managed or team policy validated before deployment, through the real
// CLI: every error with line:column (JSON syntax and schema), exit 0 valid, 1 not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-run.js';

const dir = mkdtempSync(join(tmpdir(), 'cs-policy-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));

describe('countersign policy check', () => {
  it('a valid managed policy: exit 0, and a note when where it sits now would be ignored', async () => {
    const f = file('ok.json', JSON.stringify({ version: 1, restrictions: { deny: [{ package: '@evil/*', reason: 'r' }] } }));
    const r = await runCli(dir, 'policy', 'check', f);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${f}: a valid managed policy.`);
    expect(r.stdout).toMatch(/Note: where it is now, it would be ignored: '\/tmp' is writable by every user/);
  });

  it('schema errors with line:column of the value, or of the key that is not allowed', async () => {
    const f = file(
      'bad.json',
      '{\n  "version": 1,\n  "restrictions": {\n    "deny": [{"name": "x"}],\n    "maxApprovalTimeout": {"seconds": "9", "reason": "r"}\n  },\n  "bogus": 1\n}\n',
    );
    const r = await runCli(dir, 'policy', 'check', f);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      `${f}:4:14: restrictions.deny.0.reason: Required`,
      `${f}:5:39: restrictions.maxApprovalTimeout.seconds: Expected number, received string`,
      `${f}:7:3: (top): Unrecognized key(s) in object: 'bogus'`,
      '3 errors: not a valid managed policy.',
      '',
    ]);
  });

  it('a catalogue source no option fits says what a source is; one that nearly fits says what is wrong in it', async () => {
    const f = file(
      'catalogue.json',
      '{\n  "version": 1,\n  "catalogue": [\n    {"name": "a", "source": {"nmp": {}}},\n    {"name": "b", "source": {"npm": {"name": "x", "version": "1"}}}\n  ]\n}\n',
    );
    const r = await runCli(dir, 'policy', 'check', f);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${f}:4:29: catalogue.0.source: a source is one of {command}, {url}, {npm}, {pypi} or {docker}`);
    expect(r.stdout).toContain(`${f}:5:37: catalogue.1.source.npm: an npm entry needs integrity, contentHash or both`);
  });

  it('JSON syntax errors (comments, trailing commas) with line:column; --json', async () => {
    const f = file('syntax.json', '{\n  "version": 1, // no comments\n}');
    const r = await runCli(dir, 'policy', 'check', f, '--json');
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { valid: boolean; errors: Array<{ line: number; column: number; message: string }> };
    expect(out.valid).toBe(false);
    expect(out.errors[0]).toMatchObject({ line: 2, column: 17, message: 'JSON: InvalidCommentToken' });
  });

  it('--user checks a team policy: the managed-only keys are refused there', async () => {
    const f = file('user.json', '{\n  "version": 1,\n  "restrictions": {}\n}');
    expect((await runCli(dir, 'policy', 'check', f)).code).toBe(0);
    const r = await runCli(dir, 'policy', 'check', f, '--user');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${f}:3:3: (top): Unrecognized key(s) in object: 'restrictions'`);
  });
});
