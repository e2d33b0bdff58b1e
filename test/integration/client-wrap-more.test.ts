// The clients beyond the first seven, each from a fixture in its documented format (JSON, JSONC, YAML),
// through the real CLI against a temporary home, run in the project folder as a person would:
// `clients` finds them (user and project files), `wrap --dry-run` previews with secrets masked,
// `wrap --yes` rewrites the entries to start Countersign and ends with how to undo, `unwrap` gives back
// the exact bytes, and an edit the person makes after a wrap survives the unwrap.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ClientId, ClientView } from '../../shared/clients.js';
import { parseJsonc } from '../../electron/broker/clients/json-format.js';
import { makeDataDir } from '../helpers/broker-harness.js';
import { makeClientHome, type ClientHome, type FixtureClient } from '../helpers/client-home.js';
import { CLI, NODE } from '../helpers/paths.js';

const run = promisify(execFile);

interface Case {
  client: FixtureClient & ClientId;
  /** Entries wrapped, in file order (user file, then project files). */
  wraps: string[];
  refuses: Record<string, RegExp>;
  /** Values that must leave the files and never show in a preview. */
  secrets: string[];
  /** Text the wrap must leave as it was. */
  kept: string[];
  /** An edit outside the wrapped entries, made after the wrap. */
  edit: [string, string];
}

const CASES: Case[] = [
  {
    client: 'cline',
    wraps: ['filesystem', 'github', 'remote-docs'],
    refuses: { legacy: /legacy SSE server/ },
    secrets: ['ghp_clineFixtureSecret', 'cline-fixture-token'],
    kept: ['"alwaysAllow": []', '"autoApprove": []'],
    edit: ['"https://legacy.example.com/sse"', '"https://legacy.example.com/sse2"'],
  },
  {
    client: 'roo-code',
    wraps: ['puppeteer', 'remote-tools', 'brave', 'project-files'],
    refuses: { 'old-sse': /legacy SSE server/ },
    secrets: ['roo-fixture-key'],
    kept: ['"alwaysAllow": []'],
    edit: ['"https://old.example.com/sse"', '"https://old.example.com/events"'],
  },
  {
    client: 'continue',
    wraps: ['SQLite MCP', 'Remote docs', 'ctxo', 'Browser search'],
    refuses: { 'Supabase MCP': /^\$\{\{ secrets\.SUPABASE_TOKEN \}\} in env\.SUPABASE_ACCESS_TOKEN is computed by Continue/ },
    secrets: ['continue-fixture-secret'],
    kept: [
      '# a local database, read with SQLite',
      'apiKey: ${{ secrets.ANTHROPIC_API_KEY }}',
      'SUPABASE_ACCESS_TOKEN: ${{ secrets.SUPABASE_TOKEN }}',
      "# described args before Countersign's wrap: my app's database",
    ],
    edit: ['name: My Config', 'name: My Config, edited'],
  },
  {
    client: 'crush',
    wraps: ['filesystem', 'github'],
    refuses: { 'streaming-service': /legacy SSE server/, notes: /^\$\(cat \/home\/me\/\.notes-key\) in env\.NOTES_KEY is computed by Crush/ },
    secrets: ['crush-fixture-token'],
    kept: ['"$schema": "https://charm.land/crush.json"', '"timeout": 120'],
    edit: ['"debug": false', '"debug": true'],
  },
  {
    client: 'goose',
    wraps: ['github', 'context7'],
    refuses: { developer: /goose builtin extension/, 'keyring-server': /env_keys from goose's own secret store/ },
    secrets: ['ghp_gooseFixtureSecret', 'goose-ctx7-key'],
    kept: ['display_name: Developer', 'cmd: /', "# described cmd before Countersign's wrap: started with npx", 'env_keys: [API_TOKEN]'],
    edit: ['GOOSE_MODE: smart_approve', 'GOOSE_MODE: approve'],
  },
  {
    client: 'kiro',
    wraps: ['aws-docs', 'github', 'project-db'],
    refuses: { 'api-server': /^\$\{API_TOKEN\} in headers\.Authorization is filled in by Kiro from its environment/ },
    secrets: [],
    kept: ['"disabledTools": ["delete_repository"]', '"Authorization": "Bearer ${API_TOKEN}"'],
    edit: ['"X-Custom-Header": "value"', '"X-Custom-Header": "other"'],
  },
  {
    client: 'lmstudio',
    wraps: ['hf-mcp-server', 'memory'],
    refuses: { 'old-events': /legacy SSE server/ },
    secrets: ['hf_lmstudioFixtureToken'],
    kept: [],
    edit: ['"https://old.example.com/sse"', '"https://old.example.com/events"'],
  },
  {
    client: 'opencode',
    wraps: ['my-local-mcp-server', 'my-remote-mcp', 'context7', 'my-server'],
    refuses: { sentry: /OAuth/ },
    secrets: ['opencode-fixture-value', 'opencode-fixture-key'],
    kept: ['"$schema": "https://opencode.ai/config.json"', '"enabled": true', '"oauth": {}'],
    edit: ['"theme": "opencode"', '"theme": "tokyonight"'],
  },
  {
    client: 'zed',
    wraps: ['local-mcp-server', 'older-form', 'remote-mcp-server', 'project-notes'],
    refuses: { 'mcp-server-github': /started by a Zed extension/ },
    secrets: ['zed-fixture-secret', 'zed-fixture-token'],
    kept: [
      '// For information on how to configure Zed, see the Zed',
      '"source": "custom"',
      '"settings": {}',
      "// described args before Countersign's wrap: what it serves",
    ],
    edit: ['"buffer_font_size": 15', '"buffer_font_size": 16'],
  },
  {
    client: 'amazon-q',
    wraps: ['awslabs.cdk-mcp-server', 'remote', 'workspace-git'],
    refuses: { 'old-events': /legacy SSE server/ },
    secrets: ['amazonq-fixture-token'],
    kept: ['"timeout": 60000'],
    edit: ['"https://old.example.com/sse"', '"https://old.example.com/events"'],
  },
  {
    client: 'copilot-cli',
    wraps: ['playwright', 'github'],
    refuses: { context7: /^\$\{CONTEXT7_API_KEY\} in headers\.CONTEXT7_API_KEY is filled in by GitHub Copilot CLI/ },
    secrets: ['copilot-fixture-token'],
    kept: ['"tools": ["*"]', '"type": "local"'],
    edit: ['"https://mcp.context7.com/mcp"', '"https://mcp.context7.com/mcp/"'],
  },
];

let h: ClientHome;
let dataDir: string;
beforeAll(() => {
  h = makeClientHome(
    CASES.map((c) => c.client),
    true,
  );
  dataDir = makeDataDir();
});
afterAll(() => {
  rmSync(h.root, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** Without a terminal, unwrap takes --yes with the plan hash it printed (consent bound to what was shown). */
async function unwrapConfirmed(client: string): Promise<{ stdout: string; stderr: string; code: number }> {
  const plan = /plan hash ([0-9a-f]{64})/.exec((await cs('unwrap', client, '--dry-run')).stdout)?.[1];
  if (!plan) throw new Error(`unwrap ${client} --dry-run printed no plan hash`);
  return cs('unwrap', client, '--yes', '--hash', plan);
}

async function cs(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    // Run in the project folder: its workspace configs are found without --project.
    const r = await run(NODE, [CLI, '--data-dir', dataDir, ...args], { cwd: h.project, env: { ...process.env, HOME: h.home, XDG_CONFIG_HOME: '' } });
    return { ...r, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

const filesOf = (c: Case): string[] => [h.userFile(c.client), ...h.projectFiles(c.client)];

/** The command line a wrapped entry starts, however the client writes it. */
function launchOf(value: Record<string, unknown>): string[] {
  if (Array.isArray(value.command)) return value.command as string[];
  if (typeof value.command === 'object' && value.command) {
    const c = value.command as { path: string; args: string[] };
    return [c.path, ...c.args];
  }
  return [(value.cmd ?? value.command) as string, ...((value.args ?? []) as string[])];
}

/** Every entry of a client file, by name, whatever its container. */
function entriesOf(file: string, text: string): Array<[string, Record<string, unknown>]> {
  const doc = (/\.ya?ml$/.test(file) ? parseYaml(text) : parseJsonc(text)) as Record<string, unknown>;
  const servers = (doc.mcpServers ?? doc.extensions ?? doc.context_servers ?? (doc.mcp as { servers?: unknown } | undefined)?.servers ?? doc.mcp) as unknown;
  if (Array.isArray(servers)) return servers.map((s: Record<string, unknown>) => [s.name as string, s]);
  return Object.entries((servers ?? {}) as Record<string, Record<string, unknown>>);
}

describe('more clients through the CLI', () => {
  it('`clients` finds each one, its user file and the project files of the folder it runs in', async () => {
    const listed = await cs('clients', '--json');
    expect(listed.code).toBe(0);
    const views = JSON.parse(listed.stdout) as ClientView[];
    for (const c of CASES) {
      const view = views.find((v) => v.id === c.client)!;
      expect(view.found).toBe(true);
      expect(view.files.map((f) => f.path)).toEqual(filesOf(c));
      const servers = view.files.flatMap((f) => f.servers);
      expect(servers.filter((s) => s.state === 'direct').map((s) => s.name)).toEqual(c.wraps);
      expect(
        servers
          .filter((s) => s.state === 'unsupported')
          .map((s) => s.name)
          .sort(),
      ).toEqual(Object.keys(c.refuses).sort());
    }
    for (const secret of CASES.flatMap((c) => c.secrets)) expect(listed.stdout).not.toContain(secret);
  });

  describe.each(CASES)('$client', (c) => {
    it('previews, wraps, unwraps to the exact bytes, and keeps an edit made after the wrap', async () => {
      const files = filesOf(c);
      const original = files.map((f) => readFileSync(f, 'utf8'));

      const dry = await cs('wrap', c.client, '--dry-run');
      expect(dry.code).toBe(0);
      for (const [name, why] of Object.entries(c.refuses)) {
        const reason = why.source.startsWith('^') ? why.source.slice(1) : `.*${why.source}`;
        expect(dry.stdout).toMatch(new RegExp(`    ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: left alone: ${reason}`));
      }
      expect(dry.stdout).toContain(`Dry run: nothing was written (${c.wraps.length} ${c.wraps.length === 1 ? 'entry' : 'entries'} would change).`);
      for (const secret of c.secrets) expect(dry.stdout).not.toContain(secret);
      expect(dry.stdout).not.toMatch(/\x0d|\\x0d/);
      expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual(original);

      const wrap = await cs('wrap', c.client, '--yes');
      expect(wrap.code).toBe(0);
      expect(wrap.stdout.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^To undo: countersign unwrap ${c.client} `));
      const wrapped = files.map((f) => readFileSync(f, 'utf8'));
      const all = wrapped.join('\n');
      for (const secret of c.secrets) expect(all).not.toContain(secret);
      for (const text of c.kept) expect(all).toContain(text);
      const entries = files.flatMap((f, i) => entriesOf(f, wrapped[i]!));
      for (const name of c.wraps) {
        const entry = entries.find(([n]) => n === name)![1];
        const argv = launchOf(entry);
        expect(argv[0]).toBe(process.execPath);
        const at = argv.indexOf('connect');
        expect(at).toBeGreaterThan(0);
        expect(argv.slice(at + 2)).toEqual(['--client', c.client, '--data-dir', dataDir]);
      }
      const log = readFileSync(`${dataDir}/audit.jsonl`, 'utf8');
      for (const secret of c.secrets) expect(log).not.toContain(secret);

      const exact = await unwrapConfirmed(c.client);
      expect(exact.code).toBe(0);
      expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual(original);

      // Again, then the person edits the file outside Countersign's entries: unwrap keeps the edit.
      expect((await cs('wrap', c.client, '--yes')).code).toBe(0);
      const [from, to] = c.edit;
      const user = files[0]!;
      const now = readFileSync(user, 'utf8');
      expect(now).toContain(from);
      writeFileSync(user, now.replace(from, to));
      const undone = await unwrapConfirmed(c.client);
      expect(undone.code).toBe(0);
      expect(undone.stdout).toContain("edited since the wrap: only Countersign's entries are reverted");
      expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual([original[0]!.replace(from, to), ...original.slice(1)]);
    });
  });
});
