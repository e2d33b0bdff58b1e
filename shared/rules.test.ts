import { describe, expect, it } from 'vitest';
import { decide } from './decide.js';
import type { DecisionInput, Rule, RuleScope } from './decision.js';
import { buildScope, folderChoices, isLooserRule, pathUnder, ruleApplies, ruleText, scopeCovers } from './rules.js';
import type { ToolDefinition } from './tool.js';

const NOW = Date.parse('2026-12-03T08:00:00Z');
const write: ToolDefinition = { name: 'write_file', annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false } };
const post: ToolDefinition = { name: 'post', annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true } };

const rule = (over: Partial<Rule> = {}): Rule => ({ id: 'r1', server: 'fs', tool: 'write_file', action: 'allow', createdAt: '2026-12-03T07:00:00Z', ...over });
const under = (dir: string): Rule['scope'] => ({ kind: 'under', dir, keys: ['path'] });

function input(over: Partial<DecisionInput> = {}): DecisionInput {
  return {
    server: { name: 'fs', trusted: true },
    tool: write,
    toolName: 'write_file',
    rules: [],
    session: { allowedTools: new Set(), hasReadLocalData: false },
    now: NOW,
    sessionId: 's1',
    ...over,
  };
}

describe('rule scopes', () => {
  it('under: every file the call names lies under the folder; .. cannot climb out; absolute and relative never mix', () => {
    expect(pathUnder('/home/ann/src/a.ts', '/home/ann/src')).toBe(true);
    expect(pathUnder('/home/ann/src', '/home/ann/src')).toBe(true);
    expect(pathUnder('/home/ann/srcx/a.ts', '/home/ann/src')).toBe(false);
    expect(pathUnder('/home/ann/src/../.bashrc', '/home/ann/src')).toBe(false);
    expect(pathUnder('/home/ann/src/./lib//b.ts', '/home/ann/src')).toBe(true);
    expect(pathUnder('src/a.ts', '/home/ann/src')).toBe(false);
    expect(pathUnder('src/../../etc/passwd', 'src')).toBe(false);
    expect(pathUnder('../x', '')).toBe(false);
    const scope: RuleScope = { kind: 'under', dir: '/p/src', keys: ['source', 'destination'] };
    expect(scopeCovers(scope, 'move_file', { source: '/p/src/a', destination: '/p/src/b' })).toBe(true);
    expect(scopeCovers(scope, 'move_file', { source: '/p/src/a', destination: '/p/out/b' })).toBe(false);
    // The shape must match: a call with no file, or without the keys the rule was made for, is not covered.
    expect(scopeCovers(scope, 'move_file', { path: '/p/src/a' })).toBe(false);
    expect(scopeCovers(scope, 'move_file', {})).toBe(false);
  });

  it('same-target and exact', () => {
    const same = buildScope({ kind: 'same-target' }, 'write_file', { path: '/p/notes.md', content: 'a' });
    expect(same).toEqual({ scope: { kind: 'same-target', targets: [{ key: 'path', path: '/p/notes.md' }] } });
    if (!('scope' in same)) throw new Error('no scope');
    expect(scopeCovers(same.scope, 'write_file', { path: '/p/notes.md', content: 'other' })).toBe(true);
    expect(scopeCovers(same.scope, 'write_file', { path: '/p/other.md', content: 'a' })).toBe(false);
    const exact = buildScope({ kind: 'exact' }, 'write_file', { path: '/p/n', content: 'a' });
    if (!('scope' in exact)) throw new Error('no scope');
    expect(scopeCovers(exact.scope, 'write_file', { content: 'a', path: '/p/n' })).toBe(true);
    expect(scopeCovers(exact.scope, 'write_file', { content: 'b', path: '/p/n' })).toBe(false);
  });

  it("buildScope refuses a folder that does not hold the call's files, or a scope the call has nothing for", () => {
    expect(buildScope({ kind: 'under', dir: '/p/other' }, 'write_file', { path: '/p/src/a' })).toEqual({
      error: "Not every file this call names is under '/p/other'.",
    });
    expect('error' in buildScope({ kind: 'under', dir: '/p' }, 'create_entities', { entities: [] })).toBe(true);
    expect('error' in buildScope({ kind: 'same-target' }, 'search', { query: 'x' })).toBe(true);
    expect(buildScope({ kind: 'under', dir: '/p/src/' }, 'write_file', { path: '/p/src/a' })).toEqual({
      scope: { kind: 'under', dir: '/p/src', keys: ['path'] },
    });
  });

  it("folderChoices: the files' common folder and up to two above it", () => {
    expect(folderChoices('write_file', { path: '/home/ann/proj/src/a.ts', content: '' })).toEqual(['/home/ann/proj/src', '/home/ann/proj', '/home/ann']);
    expect(folderChoices('move_file', { source: '/a/b/x', destination: '/a/c/y' })).toEqual(['/a']);
    expect(folderChoices('search', { query: 'x' })).toEqual([]);
  });
});

describe('ruleApplies: lifetime, session, definition, exfiltration', () => {
  const check = { arguments: { path: '/p/src/a', content: 'x' }, now: NOW, sessionId: 's1', definitionHash: 'h1', exfiltration: false };
  it("an expired rule, another session's rule or a changed definition does not apply", () => {
    expect(ruleApplies(rule({ expiresAt: '2026-12-03T08:30:00Z' }), 'write_file', check)).toBe(true);
    expect(ruleApplies(rule({ expiresAt: '2026-12-03T08:00:00Z' }), 'write_file', check)).toBe(false);
    expect(ruleApplies(rule({ session: 's1' }), 'write_file', check)).toBe(true);
    expect(ruleApplies(rule({ session: 's2' }), 'write_file', check)).toBe(false);
    expect(ruleApplies(rule({ definitionHash: 'h1' }), 'write_file', check)).toBe(true);
    expect(ruleApplies(rule({ definitionHash: 'h0' }), 'write_file', check)).toBe(false);
  });
  it('past the exfiltration guard only when the rule says so', () => {
    expect(ruleApplies(rule(), 'write_file', { ...check, exfiltration: true })).toBe(false);
    expect(ruleApplies(rule({ coversExfiltration: true }), 'write_file', { ...check, exfiltration: true })).toBe(true);
  });
  it('isLooserRule: a later end, no end, leaving the session or covering the guard is looser', () => {
    const base = { expiresAt: '2026-12-03T09:00:00Z' };
    expect(isLooserRule({ expiresAt: '2026-12-03T10:00:00Z' }, base)).toBe(true);
    expect(isLooserRule({}, base)).toBe(true);
    expect(isLooserRule({ expiresAt: '2026-12-03T08:30:00Z' }, base)).toBe(false);
    expect(isLooserRule({ ...base, coversExfiltration: true }, base)).toBe(true);
    expect(isLooserRule({ expiresAt: '2026-12-03T08:30:00Z' }, {})).toBe(false);
  });
  it('ruleText says it in plain words', () => {
    expect(ruleText(rule({ scope: under('/p/src'), expiresAt: '2026-12-03T09:00:00Z', coversExfiltration: true }), { now: NOW, clock: () => '09:00' })).toBe(
      "write_file on 'fs': files under /p/src, until 09:00, also after this agent read local data",
    );
    expect(ruleText(rule({ session: 's1' }))).toBe("write_file on 'fs': any arguments, for this client session");
  });
});

describe('decide with scoped rules', () => {
  const rules = [rule({ scope: under('/p/src'), expiresAt: '2026-12-03T09:00:00Z' })];
  it('allows a trusted call the rule covers, naming the rule; asks for one it does not', () => {
    const yes = decide(input({ rules, arguments: { path: '/p/src/a.ts', content: 'x' } }));
    expect(yes).toMatchObject({ outcome: 'allow', decidedBy: 'rule', rule: { id: 'r1' } });
    expect(decide(input({ rules, arguments: { path: '/p/other/a.ts', content: 'x' } })).outcome).toBe('ask');
    expect(decide(input({ rules, arguments: { path: '/p/src/a.ts' }, now: Date.parse('2026-12-03T09:00:01Z') })).outcome).toBe('ask');
  });
  it('never for an untrusted server, a protected path, or a changed definition', () => {
    expect(decide(input({ rules, server: { name: 'fs', trusted: false }, arguments: { path: '/p/src/a.ts' } })).outcome).toBe('ask');
    const critical = decide(
      input({ rules, arguments: { path: '/p/src/a.ts' }, protectedMatches: [{ kind: 'inside', what: 'x', root: '/p/src', text: '/p/src/a.ts' }] }),
    );
    expect(critical.outcome).toBe('ask');
    const bound = [rule({ scope: under('/p/src'), definitionHash: 'old' })];
    expect(decide(input({ rules: bound, arguments: { path: '/p/src/a.ts' }, definitionHash: 'new' })).outcome).toBe('ask');
    expect(decide(input({ rules: bound, arguments: { path: '/p/src/a.ts' }, definitionHash: 'old' })).outcome).toBe('allow');
  });
  it('a call the exfiltration guard asks about is covered only by a rule that says so', () => {
    const session = { allowedTools: new Set<string>(), hasReadLocalData: true };
    const plain = [rule({ tool: 'post', server: 'fs' })];
    expect(decide(input({ tool: post, toolName: 'post', rules: plain, session })).outcome).toBe('ask');
    const covering = [rule({ tool: 'post', coversExfiltration: true, expiresAt: '2026-12-03T08:15:00Z' })];
    const allowed = decide(input({ tool: post, toolName: 'post', rules: covering, session }));
    expect(allowed).toMatchObject({ outcome: 'allow', decidedBy: 'rule' });
    expect(allowed.reasons.map((r) => r.code)).toContain('exfiltration-risk');
  });
});

describe('a path scope reads every path the call names (issue 21, point 7)', () => {
  const list: RuleScope = { kind: 'under', dir: '/p/src', keys: ['paths'] };
  const covers = (args: unknown, scope: RuleScope = { kind: 'under', dir: '/p/src', keys: [] }, schema?: unknown) => scopeCovers(scope, 'tool', args, schema);

  it('the 1,001st path of a list, and a path in an argument no fixed name marks', () => {
    const many = Array.from({ length: 1000 }, (_, i) => `/p/src/f${i}.md`);
    expect(covers({ paths: many }, list)).toBe(true);
    expect(covers({ paths: [...many, '/home/ann/.bashrc'] }, list)).toBe(false);
    expect(scopeCovers(under('src'), 'render', { path: 'src/a.md', output: '~/.bashrc' })).toBe(false);
    expect(scopeCovers(under('src'), 'render', { path: 'src/a.md', output: 'src/a.html' })).toBe(true);
    expect('error' in buildScope({ kind: 'under', dir: '/p/src' }, 'write_many', { paths: [...many, '/etc/passwd'] })).toBe(true);
  });

  it.each<[string, unknown]>([
    ['any key, any depth', { path: '/p/src/a', options: { nested: [{ dest: '/etc/cron.d/x' }] } }],
    ['an object key', { path: '/p/src/a', map: { '/etc/passwd': 1 } }],
    ['a flag inside a string', { path: '/p/src/a', args: '--output=/home/ann/.bashrc' }],
    ['a word in a command', { path: '/p/src/a', cmd: 'cat ~/.ssh/id_rsa' }],
    ['a quoted shell word', { path: '/p/src/a', cmd: 'cp x ~/".ssh"/authorized_keys' }],
    ['a relative path', { path: '/p/src/a', extra: '../../etc/passwd' }],
    ['a bare name in a path argument', { path: '/p/src/a', output_file: 'bashrc' }],
    ['a file URI outside', { path: '/p/src/a', uri: 'file:///etc/passwd' }],
    ['a file URI climbing out encoded', { path: 'file:///p/src/%2e%2e/secret' }],
    ['a percent-encoded climb', { path: '/p/src/%2E%2E/secret' }],
    ['backslashes climbing out', { path: '/p/src\\..\\..\\etc\\passwd' }],
    ['a name Windows trims (src.)', { path: '/p/src./x' }],
    ['a URL whose .. climbs out when read as a path', { path: '/p/src/a', link: 'http://h/../../../../etc/passwd' }],
    ['a Windows drive path', { path: '/p/src/a', to: 'C:\\Users\\ann\\x' }],
    ['a home path', { path: '/p/src/a', save: '~/x' }],
  ])('not covered: %s', (_name, args) => {
    expect(covers(args)).toBe(false);
  });

  it.each<[string, unknown]>([
    ['file content that mentions other paths', { path: '/p/src/a.ts', content: 'import x from "../../lib/x";\n// see /etc/hosts' }],
    ["an edit's text", { path: '/p/src/a.ts', edits: [{ oldText: 'a /etc/x', newText: 'b ~/y' }] }],
    ['plain words and URLs', { path: '/p/src/a.md', message: 'fix the build', mode: 'fast', link: 'https://example.com/a/b' }],
    ['a file URI inside', { uri: 'file:///p/src/a.md' }],
    ['a file://localhost URI inside', { uri: 'file://localhost/p/src/a.md' }],
  ])('covered: %s', (_name, args) => {
    expect(covers(args)).toBe(true);
  });

  it("a bare value counts as a path where the tool's schema says the argument holds one", () => {
    const schema = {
      type: 'object',
      properties: {
        save: { type: 'string', description: 'Path of the file to save to' },
        mode: { type: 'string' },
        content: { type: 'string', description: 'What to write to the file path' },
      },
    };
    expect(covers({ path: '/p/src/a', save: 'notes', mode: 'fast' })).toBe(true);
    expect(covers({ path: '/p/src/a', save: 'notes', mode: 'fast' }, undefined, schema)).toBe(false);
    expect(covers({ path: '/p/src/a', save: '/p/src/notes', mode: 'fast' }, undefined, schema)).toBe(true);
    // File content stays content, whatever its description says.
    expect(covers({ path: '/p/src/a', content: 'hello' }, undefined, schema)).toBe(true);
    const d = decide(
      input({ tool: { ...write, inputSchema: schema }, rules: [rule({ scope: under('/p/src') })], arguments: { path: '/p/src/a', save: 'notes' } }),
    );
    expect(d.outcome).toBe('ask');
  });

  it('a call with more than can be read is never covered', () => {
    expect(covers({ paths: Array.from({ length: 10_001 }, (_, i) => `/p/src/${i}`) })).toBe(false);
    let deep: unknown = '/p/src/a';
    for (let i = 0; i < 70; i++) deep = { deep };
    expect(covers(deep)).toBe(false);
  });

  it('same-target: exactly the paths named, wherever they are', () => {
    const same = buildScope({ kind: 'same-target' }, 'render', { path: '/p/a.md', output: '/p/a.html' });
    expect(same).toEqual({
      scope: {
        kind: 'same-target',
        targets: [
          { key: 'path', path: '/p/a.md' },
          { key: 'output', path: '/p/a.html' },
        ],
      },
    });
    if (!('scope' in same)) throw new Error('no scope');
    expect(scopeCovers(same.scope, 'render', { path: '/p/a.md', output: '/p/a.html' })).toBe(true);
    expect(scopeCovers(same.scope, 'render', { path: '/p/a.md', output: '/p/a.html', also: '/etc/x' })).toBe(false);
  });
});
