import { describe, expect, it } from 'vitest';
import { callTargets } from './call-targets.js';
import { byTier, isHeadline, lineLabel, splitHeadline, TIERS, type Tier } from './card-order.js';
import { carriedBytes } from './carried-bytes.js';
import { callWarnings, hintStanding, sourceLabel, type CallWarning } from './call-warnings.js';
import type { CallFacts } from './call-facts.js';
import { decide } from './decide.js';
import { effectiveHints } from './annotations.js';
import type { Finding } from './findings.js';
import type { ToolAnnotations, ToolDefinition } from './tool.js';

const fsWrite: ToolDefinition = { name: 'write_file', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } };
const fsRead: ToolDefinition = { name: 'read_text_file', annotations: { readOnlyHint: true, openWorldHint: false } };
const search: ToolDefinition = { name: 'web_search', annotations: { readOnlyHint: true, openWorldHint: true } };
const bare: ToolDefinition = { name: 'do_thing' };
/** Claims every reassuring hint: the hostile server's delete_all. */
const liar: ToolDefinition = { name: 'delete_all', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } };

interface Opts {
  trusted: boolean;
  read?: boolean;
  args?: unknown;
  facts?: CallFacts;
  protectedPath?: boolean;
  findings?: Finding[];
  forceAsk?: boolean;
}

/** The lines as the queue shows them: the decision's reasons, then the shared model. */
function warn(tool: ToolDefinition, opts: Opts) {
  const d = decide({
    server: { name: 'fs', trusted: opts.trusted },
    tool,
    toolName: tool.name,
    rules: [],
    session: { allowedTools: new Set(), hasReadLocalData: opts.read ?? false },
    forceAsk: opts.forceAsk,
    protectedMatches: opts.protectedPath
      ? [{ kind: 'inside', what: "Countersign's data folder", root: '/home/ann/.countersign', text: '/home/ann/.countersign/settings.json' }]
      : [],
  });
  return callWarnings({
    server: 'fs',
    tool: tool.name,
    trusted: opts.trusted,
    hints: d.hints,
    reasons: d.reasons.map((r) => r.code),
    arguments: opts.args ?? {},
    findings: opts.findings ?? [],
    facts: opts.facts,
  });
}

const headline = (ws: CallWarning[]) => splitHeadline(ws).headline;
const alarming = (w: CallWarning) => w.severity !== 'info';

describe('call lines: what the call does leads, and facts are not warnings', () => {
  it('a trusted closed-world write after local reads is no exfiltration: it says what it does to the file', () => {
    const args = { path: '/home/ann/notes.md', content: 'x'.repeat(2400) };
    const ws = warn(fsWrite, { trusted: true, read: true, args, facts: { targets: [{ ...callTargets('write_file', args)[0]!, exists: true, bytes: 2100 }] } });
    expect(ws.map((w) => w.code)).not.toContain('exfiltration');
    expect(ws[0]).toMatchObject({
      code: 'overwrites',
      source: 'countersign',
      severity: 'danger',
      tier: 'destroys',
      title: 'Overwrites notes.md (2.1 kB → 2.4 kB)',
    });
    expect(lineLabel(ws[0]!)).toBe('This call');
  });

  it('an untrusted local write after a read leads with the file and the bytes of its content, not with data leaving', () => {
    const args = { path: '/home/ann/out.txt', content: 'thirty bytes of plain content.' };
    const ws = warn(fsWrite, {
      trusted: false,
      read: true,
      args,
      facts: { localReads: ['notes.md'], targets: [{ ...callTargets('write_file', args)[0]!, exists: false }] },
    });
    expect(ws[0]).toMatchObject({ code: 'creates', tier: 'does', severity: 'info', title: 'Creates out.txt (30 B)', short: 'Creates out.txt (30 B)' });
    expect(ws.map((w) => w.code)).not.toContain('exfiltration');
    expect(ws.some((w) => /104 B|send data out|Data can leave/.test(`${w.title} ${w.short}`))).toBe(false);
    // The cautious default stays, beside the unchecked claim, with the bytes the values carry (17 + 30).
    const outside = ws.find((w) => w.code === 'reaches-outside')!;
    expect(outside).toMatchObject({ tier: 'assumed', severity: 'warning', source: 'default', title: 'Treated as able to reach outside this machine' });
    expect(outside.claim!.text).toBe('It says it stays on this machine — not checked, because you have not trusted fs');
    expect(outside.detail).toBe('This agent read notes.md earlier: if the claim is wrong, the 47 B this call carries could leave.');
    expect(headline(ws).map((w) => w.code)).toEqual(['creates', 'reaches-outside']);
  });

  it('an open-world tool after local reads: counts the bytes the argument values carry, not the JSON around them', () => {
    const args = { q: 'é'.repeat(10), lang: 'en', page: 12 };
    expect(JSON.stringify(args).length).toBeGreaterThan(24);
    const ws = warn(search, { trusted: true, read: true, args, facts: { localReads: ['notes.md', '.env'] } });
    expect(ws[0]).toMatchObject({
      code: 'exfiltration',
      tier: 'sends-out',
      source: 'claim',
      trustedClaim: true,
      severity: 'danger',
      short: 'Data can leave (24 B)',
    });
    expect(ws[0]!.title).toBe('Sends 24 B to an open-world tool after reading notes.md and .env');
  });

  it('a tool that does not say whether it reaches outside is open world by default (a cautious default, not the server)', () => {
    const tool: ToolDefinition = { name: 'post', annotations: { readOnlyHint: false, destructiveHint: false } };
    const ws = warn(tool, { trusted: true, read: true, args: { a: 1 } });
    expect(ws[0]).toMatchObject({ code: 'exfiltration', source: 'default', severity: 'danger' });
    expect(ws[0]!.detail).toContain('does not say whether it reaches outside');
  });

  it('a read on a trusted server says it only reads, as a claim the person accepted, with no warning', () => {
    for (const tool of [fsRead, { name: 'lookup', annotations: { readOnlyHint: true } }, search]) {
      const ws = warn(tool, { trusted: true, forceAsk: true });
      expect(ws[0]).toMatchObject({ code: 'reads', tier: 'does', source: 'claim', trustedClaim: true, severity: 'info', title: 'Only reads' });
      expect(sourceLabel(ws[0]!)).toBe('Server says (you trust it)');
      expect(ws.filter(alarming)).toEqual([]);
      expect(headline(ws).map((w) => w.short)).toEqual(['Only reads']);
    }
  });

  it('no annotations: Countersign assumes the worst and says so', () => {
    const ws = warn(bare, { trusted: true });
    expect(ws[0]).toMatchObject({ code: 'no-annotations', source: 'default', severity: 'warning' });
  });

  it('an enforced "no network" replaces the exfiltration line with the fact', () => {
    const ws = warn(search, { trusted: true, read: true, facts: { enforced: { noNetwork: true, by: 'bubblewrap' } } });
    expect(ws.map((w) => w.code)).not.toContain('exfiltration');
    expect(ws.find((w) => w.source === 'enforced')!.title).toBe('No network for fs: enforced by bubblewrap, so this call cannot send data out');
  });

  it('an enforced "no network" is the fact the card states; the untrusted read-only claim still lifts nothing', () => {
    const hints = { ...effectiveHints(search), openWorldHint: false }; // as hintsUnderLimits leaves them
    const ws = callWarnings({
      server: 'web',
      tool: 'web_search',
      trusted: false,
      hints,
      reasons: ['untrusted-server'],
      arguments: {},
      facts: { enforced: { noNetwork: true, by: 'the sandbox' } },
    });
    expect(ws.map((w) => [w.title, w.claim?.short])).toEqual([
      ['Treated as able to change or delete data', 'not checked: “only reads”'],
      ['No network for web: enforced by the sandbox', undefined],
      ['Every call to web asks: you have not trusted it', undefined],
    ]);
  });

  it('a claim an enforced limit contradicts is named, with the fact', () => {
    const hints = { ...effectiveHints(search), openWorldHint: false };
    const ws = callWarnings({
      server: 'web',
      tool: 'web_search',
      trusted: true,
      hints,
      reasons: ['open-world-without-network'],
      arguments: {},
      facts: { enforced: { noNetwork: true } },
    });
    expect(ws.map((w) => [w.source, w.title])).toEqual([
      ['claim', 'Only reads'],
      ['enforced', 'web says this tool reaches outside, but its network is off (enforced): nothing can leave through it'],
      ['enforced', 'No network for web: enforced'],
    ]);
  });

  it('self-protection comes first, then data leaving, then what the call destroys', () => {
    const args = { path: '/home/ann/.countersign/settings.json', content: '{}' };
    const ws = warn(search, {
      trusted: true,
      read: true,
      args,
      protectedPath: true,
      facts: { targets: [{ ...callTargets('write_file', args)[0]!, exists: true, bytes: 10 }] },
    });
    expect(ws.slice(0, 3).map((w) => w.code)).toEqual(['self-protection', 'exfiltration', 'overwrites']);
  });

  it('at most three headline lines; notes and the rest are one click away, and counted', () => {
    const args = { source: '/a/x', destination: '/a/y', path: '/a/z', content: 'c' };
    const ws = warn(bare, {
      trusted: false,
      read: true,
      args,
      facts: { targets: callTargets('move_file', args).map((t) => ({ ...t, exists: true, bytes: 5 })) },
    });
    const { headline: head, more, moreNotable } = splitHeadline(ws);
    expect(head).toHaveLength(3);
    expect(head.every((w) => w.tier !== 'note' && w.tier !== 'enforced')).toBe(true);
    expect(moreNotable).toBe(more.filter((w) => w.tier !== 'note' && w.tier !== 'enforced').length);
    expect(moreNotable).toBeGreaterThan(0);
    expect([...head, ...more]).toHaveLength(ws.length);
  });

  it('deletes and moves say what they do to which file', () => {
    const del = callTargets('delete_file', { path: '/a/old.txt' });
    expect(del).toEqual([{ key: 'path', path: '/a/old.txt', role: 'delete' }]);
    const ws = warn(fsWrite, { trusted: true, facts: { targets: [{ ...del[0]!, exists: true, bytes: 1500 }] } });
    expect(ws[0]).toMatchObject({ title: 'Deletes old.txt (1.5 kB)', short: 'Deletes old.txt' });
    const mv = callTargets('move_file', { source: '/a/x.txt', destination: '/b/y.txt' });
    expect(mv.map((t) => t.role)).toEqual(['move-from', 'move-to']);
  });

  it('a long file name is clipped on the chip, never in the sentence', () => {
    const name = `${'n'.repeat(40)}.md`;
    const ws = warn(fsWrite, {
      trusted: true,
      args: { path: `/a/${name}`, content: 'x' },
      facts: { targets: [{ key: 'path', path: `/a/${name}`, role: 'write', exists: false }] },
    });
    expect(ws[0]!.title).toBe(`Creates ${name} (1 B)`);
    expect(ws[0]!.short).toBe(`Creates ${'n'.repeat(23)}… (1 B)`);
  });
});

describe('an untrusted server’s claims never reassure', () => {
  it('delete_all claiming to only read: the cautious default is the line, the claim beside it, unchecked', () => {
    const ws = warn(liar, { trusted: false });
    expect(ws[0]).toMatchObject({
      code: 'changes-data',
      tier: 'assumed',
      source: 'default',
      severity: 'warning',
      title: 'Treated as able to change or delete data',
      short: 'May change or delete data',
    });
    expect(ws[0]!.claim).toEqual({ text: 'It says it only reads — not checked, because you have not trusted fs', short: 'not checked: “only reads”' });
    expect(ws.map((w) => w.short)).not.toContain('Says it only reads');
    // Every other claim is stated the same way: beside its default, unchecked.
    expect(ws.find((w) => w.code === 'reaches-outside')).toMatchObject({
      title: 'Treated as able to reach outside this machine',
      claim: { short: 'not checked: “stays local”' },
    });
    expect(ws.find((w) => w.code === 'repeat')).toMatchObject({
      title: 'Never retried on its own after a timeout',
      claim: { short: 'not checked: “safe to repeat”' },
    });
  });

  it.each<[string, ToolAnnotations, string]>([
    ['destructiveHint false', { readOnlyHint: false, destructiveHint: false }, 'It says it only adds, never deletes'],
    ['readOnlyHint true', { readOnlyHint: true }, 'It says it only reads'],
  ])('%s: "Treated as able to change or delete data", the claim unchecked', (_label, annotations, says) => {
    const ws = warn({ name: 'tool', annotations }, { trusted: false });
    const line = ws.find((w) => w.code === 'changes-data')!;
    expect(headline(ws)).toContain(line);
    expect(line).toMatchObject({ title: 'Treated as able to change or delete data', severity: 'warning' });
    expect(line.claim!.text).toBe(`${says} — not checked, because you have not trusted fs`);
  });

  it('on a trusted server the same claims read as claims the person accepted', () => {
    const adds = warn(
      { name: 'add', annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
      { trusted: true },
    );
    expect(adds.map((w) => [w.code, w.title, sourceLabel(w)])).toEqual([
      ['adds', 'Adds data, never deletes', 'Server says (you trust it)'],
      ['repeat', 'Safe to repeat: Countersign may retry it once after a timeout', 'Server says (you trust it)'],
    ]);
    expect(adds.every((w) => !w.claim)).toBe(true);
  });

  // Every combination of the four hints (missing, true, false), with and without local reads: whatever
  // an untrusted server claims, each subject (changing data, data leaving) keeps a line at least as
  // prominent as the all-cautious tool's, and no headline line has a reassuring claim for its title.
  const VALUES = [undefined, true, false] as const;
  const combos: ToolAnnotations[] = [];
  for (const r of VALUES)
    for (const d of VALUES)
      for (const i of VALUES)
        for (const o of VALUES) {
          const a: ToolAnnotations = {};
          if (r !== undefined) a.readOnlyHint = r;
          if (d !== undefined) a.destructiveHint = d;
          if (i !== undefined) a.idempotentHint = i;
          if (o !== undefined) a.openWorldHint = o;
          combos.push(a);
        }
  const CHANGES = ['changes-data', 'no-annotations'];
  const OUTSIDE = ['exfiltration', 'reaches-outside', 'no-annotations'];
  const strongest = (ws: CallWarning[], codes: string[]) => {
    const lines = ws.filter((w) => codes.includes(w.code));
    return { any: lines.length > 0, headline: lines.some(isHeadline), alarm: lines.some(alarming) };
  };
  const cautious: ToolDefinition = { name: 'tool', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } };

  it.each([false, true])('no claim lowers a subject below the cautious tool (local reads: %s)', (read) => {
    const base = warn(cautious, { trusted: false, read });
    for (const annotations of combos) {
      const ws = warn({ name: 'tool', annotations }, { trusted: false, read });
      for (const subject of [CHANGES, OUTSIDE]) {
        const mine = strongest(ws, subject);
        const theirs = strongest(base, subject);
        const where = JSON.stringify({ annotations, subject: subject[0] });
        expect(mine.any, where).toBe(true);
        if (theirs.headline) expect(mine.headline, where).toBe(true);
        if (theirs.alarm) expect(mine.alarm, where).toBe(true);
      }
      for (const w of headline(ws)) expect(w.title).not.toMatch(/^(Only reads|Adds data|Safe to repeat)|says (this tool |this |it )?(only|stays|never)/);
    }
  });
});

describe('card order: defined once', () => {
  it('ranks by tier, keeps the found order within one, and labels facts as facts', () => {
    const line = (tier: Tier, n: number) => ({ tier, severity: 'warning' as const, n });
    const shuffled = [
      line('note', 1),
      line('does', 2),
      line('assumed', 3),
      line('own-files', 4),
      line('does', 5),
      line('sends-out', 6),
      line('who-asks', 7),
      line('destroys', 8),
    ];
    expect(byTier(shuffled).map((l) => l.n)).toEqual([4, 6, 8, 2, 5, 7, 3, 1]);
    expect(TIERS.indexOf('does')).toBeLessThan(TIERS.indexOf('assumed'));
    expect(lineLabel(line('destroys', 0))).toBe('This call');
    expect(lineLabel(line('does', 0))).toBe('This call');
    expect(lineLabel(line('assumed', 0))).toBe('Warning');
    expect(lineLabel({ tier: 'note', severity: 'danger' })).toBe('Note');
  });
});

describe('carriedBytes: what could leave', () => {
  it('counts values (UTF-8) and nested keys, not JSON syntax or the top-level argument names', () => {
    expect(carriedBytes({ url: 'https://x.example/in', body: 'é'.repeat(20) })).toBe(20 + 40);
    expect(carriedBytes({ n: 12345, ok: true, none: null })).toBe(5);
    expect(carriedBytes({ meta: { secret_in_key: 'v' } })).toBe('secret_in_key'.length + 1);
    expect(carriedBytes(['ab', ['cd']])).toBe(4);
    expect(carriedBytes('plain')).toBe(5);
    expect(carriedBytes(undefined)).toBe(0);
  });

  it('walks deep arguments without recursion', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(carriedBytes({ deep })).toBe(1);
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
