import { describe, expect, it } from 'vitest';
import { callTargets } from './call-targets.js';
import { callWarnings, hintStanding, splitHeadline, type CallFacts } from './call-warnings.js';
import { decide } from './decide.js';
import { effectiveHints } from './annotations.js';
import type { ToolDefinition } from './tool.js';

const fsWrite: ToolDefinition = { name: 'write_file', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } };
const fsRead: ToolDefinition = { name: 'read_text_file', annotations: { readOnlyHint: true, openWorldHint: false } };
const search: ToolDefinition = { name: 'web_search', annotations: { readOnlyHint: true, openWorldHint: true } };
const bare: ToolDefinition = { name: 'do_thing' };

/** The warnings as the queue shows them: the decision's reasons, then the shared model. */
function warn(tool: ToolDefinition, opts: { trusted: boolean; read?: boolean; args?: unknown; facts?: CallFacts; protectedPath?: boolean }) {
  const d = decide({
    server: { name: 'fs', trusted: opts.trusted },
    tool,
    toolName: tool.name,
    rules: [],
    session: { allowedTools: new Set(), hasReadLocalData: opts.read ?? false },
    protectedMatches: opts.protectedPath ? [{ kind: 'inside', what: "Countersign's data folder", root: '/home/ann/.countersign', text: '/home/ann/.countersign/settings.json' }] : [],
  });
  return callWarnings({
    server: 'fs', tool: tool.name, trusted: opts.trusted, hints: d.hints, reasons: d.reasons.map((r) => r.code),
    arguments: opts.args ?? {}, findings: [], facts: opts.facts,
  });
}

describe('call warnings: what is known and what is claimed', () => {
  it('a trusted closed-world write after local reads is no exfiltration: it says what it does to the file', () => {
    const args = { path: '/home/ann/notes.md', content: 'x'.repeat(2400) };
    const ws = warn(fsWrite, { trusted: true, read: true, args, facts: { targets: [{ ...callTargets('write_file', args)[0]!, exists: true, bytes: 2100 }] } });
    expect(ws.map((w) => w.code)).not.toContain('exfiltration');
    expect(ws[0]).toMatchObject({ code: 'overwrites', source: 'countersign', severity: 'danger', title: 'Overwrites notes.md (2.1 kB → 2.4 kB)' });
  });

  it('an open-world tool after local reads: names the size and what was read, and that the open world is claimed', () => {
    const args = { query: 'y'.repeat(3000) };
    const ws = warn(search, { trusted: true, read: true, args, facts: { localReads: ['notes.md', '.env'] } });
    expect(ws[0]).toMatchObject({ code: 'exfiltration', source: 'claim', trustedClaim: true, severity: 'danger' });
    expect(ws[0]!.title).toBe('Sends 3.0 kB to an open-world tool after reading notes.md and .env');
  });

  it('a tool that does not say whether it reaches outside is open world by default (Countersign, not the server, says so)', () => {
    const tool: ToolDefinition = { name: 'post', annotations: { readOnlyHint: false, destructiveHint: false } };
    const ws = warn(tool, { trusted: true, read: true, args: { a: 1 } });
    expect(ws[0]).toMatchObject({ code: 'exfiltration', source: 'countersign', severity: 'danger' });
    expect(ws[0]!.detail).toContain('does not say whether it reaches outside');
  });

  it('an untrusted read-only claim reads as a claim, never as "may change or delete data"', () => {
    const ws = warn(fsRead, { trusted: false });
    expect(ws.map((w) => w.code)).toEqual(['unverified-claims', 'untrusted']);
    expect(ws[0]).toMatchObject({ source: 'claim', trustedClaim: false, severity: 'warning' });
    expect(ws[0]!.title).toBe('fs says this only reads and stays on this machine; not verified, because you have not trusted it');
    expect(ws.some((w) => /change or delete|can leave/.test(w.title))).toBe(false);
  });

  it('an untrusted closed-world claim after local reads still warns (friction stays), worded as the claim it rests on', () => {
    const ws = warn(fsWrite, { trusted: false, read: true, args: { path: 'rel/notes.md', content: 'abc' }, facts: { localReads: ['.env'] } });
    const ex = ws.find((w) => w.code === 'exfiltration');
    expect(ex).toMatchObject({ source: 'claim', trustedClaim: false, severity: 'warning' });
    expect(ex!.title).toMatch(/^fs says this tool stays on this machine; not verified, because you have not trusted it\. If that is wrong, it could send \d+ B out after this agent's reading \.env$/);
  });

  it('no annotations: Countersign assumes the worst and says so', () => {
    const ws = warn(bare, { trusted: true });
    expect(ws[0]).toMatchObject({ code: 'no-annotations', source: 'countersign' });
  });

  it('an enforced "no network" replaces the exfiltration warning with the fact', () => {
    const ws = warn(search, { trusted: true, read: true, facts: { enforced: { noNetwork: true, by: 'bubblewrap' } } });
    expect(ws.map((w) => w.code)).not.toContain('exfiltration');
    expect(ws.find((w) => w.source === 'enforced')!.title).toBe('No network for fs: enforced by bubblewrap, so this call cannot send data out');
  });

  it('an enforced "no network" is the fact the card states, not an untrusted claim about staying local', () => {
    const hints = { ...effectiveHints(search), openWorldHint: false }; // as hintsUnderLimits leaves them
    const ws = callWarnings({ server: 'web', tool: 'web_search', trusted: false, hints, reasons: ['untrusted-server'], arguments: {}, facts: { enforced: { noNetwork: true, by: 'the sandbox' } } });
    expect(ws.map((w) => w.title)).toEqual([
      'web says this only reads; not verified, because you have not trusted it',
      'No network for web: enforced by the sandbox',
      'Every call to web asks: you have not trusted it',
    ]);
  });

  it('a claim an enforced limit contradicts is named, with the fact', () => {
    const hints = { ...effectiveHints(search), openWorldHint: false };
    const ws = callWarnings({ server: 'web', tool: 'web_search', trusted: true, hints, reasons: ['open-world-without-network'], arguments: {}, facts: { enforced: { noNetwork: true } } });
    expect(ws.map((w) => [w.source, w.title])).toEqual([
      ['enforced', 'web says this tool reaches outside, but its network is off (enforced): nothing can leave through it'],
      ['enforced', 'No network for web: enforced'],
    ]);
  });

  it("self-protection comes first, whatever else the call does", () => {
    const args = { path: '/home/ann/.countersign/settings.json', content: '{}' };
    const ws = warn(search, { trusted: true, read: true, args, protectedPath: true, facts: { targets: [{ ...callTargets('write_file', args)[0]!, exists: true, bytes: 10 }] } });
    expect(ws.slice(0, 3).map((w) => w.code)).toEqual(['self-protection', 'exfiltration', 'overwrites']);
  });

  it('at most three headline warnings; notes and the rest are one click away', () => {
    const args = { source: '/a/x', destination: '/a/y', path: '/a/z', content: 'c' };
    const ws = warn(bare, { trusted: false, read: true, args, facts: { targets: callTargets('move_file', args).map((t) => ({ ...t, exists: true, bytes: 5 })) } });
    const { headline, more } = splitHeadline(ws);
    expect(headline).toHaveLength(3);
    expect(headline.every((w) => w.severity !== 'info')).toBe(true);
    expect(more.length).toBeGreaterThan(0);
    expect([...headline, ...more]).toHaveLength(ws.length);
  });

  it('deletes and moves say what they do to which file', () => {
    const del = callTargets('delete_file', { path: '/a/old.txt' });
    expect(del).toEqual([{ key: 'path', path: '/a/old.txt', role: 'delete' }]);
    const ws = warn(fsWrite, { trusted: true, facts: { targets: [{ ...del[0]!, exists: true, bytes: 1500 }] } });
    expect(ws[0]!.title).toBe('Deletes old.txt (1.5 kB)');
    const mv = callTargets('move_file', { source: '/a/x.txt', destination: '/b/y.txt' });
    expect(mv.map((t) => t.role)).toEqual(['move-from', 'move-to']);
  });
});

describe('hintStanding: the Servers screen reads hints as the queue does', () => {
  const hints = effectiveHints(fsRead);
  it('trusted: the claim counts', () => {
    expect(hintStanding(hints, 'openWorldHint', true)).toEqual({ value: false, basis: 'claim' });
    expect(hintStanding(hints, 'readOnlyHint', true)).toEqual({ value: true, basis: 'claim' });
  });
  it('untrusted: a claim that would remove caution is not used (open world, may change things)', () => {
    expect(hintStanding(hints, 'openWorldHint', false)).toEqual({ value: true, basis: 'ignored' });
    expect(hintStanding(hints, 'readOnlyHint', false)).toEqual({ value: false, basis: 'ignored' });
  });
  it('missing: the cautious default, trusted or not', () => {
    expect(hintStanding(hints, 'destructiveHint', true)).toEqual({ value: true, basis: 'default' });
    expect(hintStanding(effectiveHints(search), 'openWorldHint', false)).toEqual({ value: true, basis: 'claim' });
  });
});
