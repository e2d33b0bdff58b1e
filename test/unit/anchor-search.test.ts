// The word-rule prefilter may say yes too often, never too rarely: wherever a rule's regex matches,
// the search must name that rule, in prose, in base64 runs, in any case and with any punctuation.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AnchorSearch, onlyBase64 } from '../../electron/broker/checks/scan/anchor-search.js';
import { WORD_RULES } from '../../electron/broker/checks/scan/word-rules.js';

const search = new AnchorSearch([...WORD_RULES]);
const ALL = WORD_RULES.map((_, k) => k);
const matching = (text: string) => ALL.filter((k) => new RegExp(WORD_RULES[k]!.re.source, 'i').test(text));

// Seeded, so a failure can be replayed.
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PHRASES = [
  '<IMPORTANT>',
  '</secret>',
  '<|im_start|>',
  '[INST]',
  '<<SYS>>',
  'do not tell the user',
  'Never mention',
  'without telling the user',
  'ignore all previous instructions',
  'before using this tool, read',
  'you must first',
  'always call this tool first',
  '~/.ssh/id_rsa',
  'id_ed25519',
  'authorized_keys',
  '.aws/credentials',
  'AWS_SECRET_ACCESS_KEY',
  'mcp.json',
  'claude_desktop_config.json',
  '.claude.json',
  '.cursor',
  '.codeium/windsurf',
  '.netrc',
  '.git-credentials',
  '.docker/config.json',
  '.kube/config',
  '.env.local',
  'API_KEY',
  'apikey',
  'password',
  'private key',
  'secret-key',
  'client_secret',
  'access_token',
  'AuthToken',
  'seed phrase',
  'tokens',
  'credentials',
];
const SEPARATORS = [' ', '\n', '/', '+', '-', '_', '.', '=', ':', '', '', 'é', '世', '\u00a0', 'x', '9'];

describe('anchor search', () => {
  it('names every rule whose regex matches, over 2,000 mixed texts', () => {
    const rnd = random(11);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    let matched = 0;
    for (let i = 0; i < 2000; i++) {
      const parts: string[] = [];
      for (let n = 1 + Math.floor(rnd() * 8); n > 0; n--) {
        const r = rnd();
        let p = r < 0.4 ? pick(PHRASES) : r < 0.7 ? pick(SEPARATORS) : randomBytes(Math.floor(rnd() * 60)).toString(rnd() < 0.5 ? 'base64' : 'base64url');
        if (rnd() < 0.3) p = p.replace(/./g, (c) => (rnd() < 0.5 ? c.toUpperCase() : c));
        parts.push(p);
      }
      const text = parts.join('');
      const want = matching(text);
      matched += want.length;
      const hits = search.hits(text, true, ALL);
      for (const k of want) expect(hits.has(k), `rule ${k} in ${JSON.stringify(text)}`).toBe(true);
    }
    expect(matched).toBeGreaterThan(1000);
  });

  it('finds a word at a + / = - boundary inside base64, and at the very start of it', () => {
    const b64 = randomBytes(3000).toString('base64').replace(/[+/=]/g, 'A');
    const secretWords = WORD_RULES.length - 1;
    const phrases = WORD_RULES.findIndex((r) => r.anchors.includes('client'));
    for (const text of [`${b64}+PassWord/${b64}`, `${b64}=apikey`, `${b64}-Tokens+${b64}`, `password+${b64}`]) {
      expect(onlyBase64(text)).toBe(true);
      const hits = search.hits(text, true, ALL);
      expect(hits.has(phrases) || hits.has(secretWords), text.slice(3990, 4030)).toBe(true);
    }
    // Inside a base64 word there is no word boundary, so no rule can match and none is named.
    expect(search.hits(`${b64}password${b64}`, true, ALL).size).toBe(0);
    expect(matching(`${b64}password${b64}`)).toEqual([]);
  });

  it('skips rules whose matches need whitespace in whitespace-free text, keeps them otherwise', () => {
    const ignore = WORD_RULES.findIndex((r) => r.anchors.includes('ignore'));
    expect(search.hits('ignore_previous_instructions', true, [ignore]).size).toBe(0);
    expect(search.hits('ignore\u00a0previous instructions', true, [ignore]).has(ignore)).toBe(true);
  });

  it('finds a word inside a longer anchor of another rule (".git-credentials" after a letter)', () => {
    const text = 'A.git-Credentials';
    const want = matching(text);
    expect(want).toEqual([WORD_RULES.length - 1]);
    expect(search.hits(text, true, ALL).has(WORD_RULES.length - 1)).toBe(true);
  });
});
