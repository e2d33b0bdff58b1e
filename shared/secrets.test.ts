// The one secret detector: each kind matches its real shape and not its near miss, masking hides the
// secret and keeps the rest, long texts are searched in windows, and hostile input stays linear.
// Every "secret" here is made up: the right shape, no real credential.
import { describe, expect, it } from 'vitest';
import { findSecrets, maskSecrets, maskText, secretKind, secretReason, secretShapes } from './secrets.js';

const alnum = (n: number) => 'aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC'.repeat(Math.ceil(n / 32)).slice(0, n);

// [kind, a value that must match, a near miss that must not be taken for that kind]
const KINDS: Array<[string, string, string]> = [
  [
    'a PEM private key',
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----',
    '-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----',
  ],
  ['a PEM block', '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmg\n-----END CERTIFICATE-----', '-----BEGIN certificate-----'],
  ['an Anthropic API key (sk-ant-…)', `sk-ant-api03-${alnum(40)}`, 'sk-ant-api03-short'],
  ['an OpenAI API key (sk-proj-…)', `sk-proj-${alnum(48)}`, 'sk-proj-tooShort12'],
  ['a Stripe secret key (sk_live_…)', `sk_live_${alnum(24)}`, `pk_live_${alnum(24)}`],
  ['an API key (sk-…)', `sk-${alnum(32)}`, `task-${alnum(32)}`],
  ['a GitHub token (ghp_…)', `ghp_${alnum(36)}`, `ghx_${alnum(36)}`],
  ['a GitHub token (github_pat_…)', `github_pat_11ABCDEFG0_${alnum(40)}`, 'github_pat_short'],
  ['a GitLab token (glpat-…)', `glpat-${alnum(20)}`, `glpat-${alnum(12)}`],
  ['an npm token (npm_…)', `npm_${alnum(36)}`, `npm_${alnum(35)}`],
  ['a Hugging Face token (hf_…)', `hf_${alnum(34)}`, `hf_${alnum(12)}`],
  ['a Slack token (xox…)', 'xoxb-2150123456-4321098765-' + alnum(24), 'xoxz-2150123456-4321098765'],
  ['an AWS access key', 'AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPL'],
  ['a Google API key', `AIza${alnum(35)}`, `AIza${alnum(34)}`],
  ['a SendGrid key (SG.…)', `SG.${alnum(22)}.${alnum(43)}`, 'SG.short.key'],
  ['a JSON Web Token', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9P', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0'],
  ['a bearer token', `Bearer ${alnum(40)}`, 'Bearer of bad news and good tidings'],
];

describe('each kind of secret', () => {
  it.each(KINDS)('%s: its shape matches, in text too', (kind, value) => {
    expect(secretKind(value)).toBe(kind);
    expect(secretKind(`config: ${value} (rotated)`)).toBe(kind);
  });

  it.each(KINDS)('%s: the near miss is not taken for it', (kind, _value, nearMiss) => {
    expect(secretKind(nearMiss)).not.toBe(kind);
  });

  it('near misses that look like nothing secret at all', () => {
    for (const text of [
      'task-abcdefghijklmnopqrstuvwxyz',
      `pk_live_${alnum(24)}`,
      'Bearer of bad news and good tidings',
      'the sk- prefix',
      'AKIA is a prefix',
      'eyJ.a.b',
    ]) {
      expect(secretKind(text), text).toBeUndefined();
    }
  });
});

describe('secretReason and findSecrets (the UI flags)', () => {
  it('flags by shape first, then by the name holding the value', () => {
    expect(secretReason(`ghp_${alnum(36)}`, 'note')).toBe('looks like a GitHub token (ghp_…)');
    expect(secretReason('hunter2', 'password')).toBe('the name "password" suggests a secret');
    expect(secretReason(1234, 'apiKey')).toBe('the name "apiKey" suggests a secret');
    expect(secretReason('hello', 'note')).toBeUndefined();
    expect(secretReason('', 'password')).toBeUndefined();
  });

  it('names each flagged leaf by its path, with the key escaped', () => {
    expect(findSecrets({ a: [{ 'token\u202e': 'x' }], b: `AKIAIOSFODNN7EXAMPLE` })).toEqual([
      { path: 'a[0].token\u202e', why: 'the name "token\\u202e" suggests a secret' },
      { path: 'b', why: 'looks like an AWS access key' },
    ]);
  });
});

describe('masking', () => {
  it('replaces each secret with its kind and keeps the text around it', () => {
    const gh = `ghp_${alnum(36)}`;
    const aws = 'AKIAIOSFODNN7EXAMPLE';
    expect(maskText(`use ${gh} and ${aws}.`)).toBe('use [masked: a GitHub token (ghp_…)] and [masked: an AWS access key].');
    expect(maskText('nothing here')).toBe('nothing here');
  });

  it('masks a private key block to its END line, and to the end of a text without one', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nqwerty\n-----END RSA PRIVATE KEY-----';
    expect(maskText(`before\n${key}\nafter`)).toBe('before\n[masked: a PEM private key]\nafter');
    expect(maskText('x -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI')).toBe('x [masked: a PEM private key]');
  });

  it('masks whole strings under secret names, never numbers, and copies the rest as it is', () => {
    const value = {
      password: 'hunter2',
      headers: { Authorization: `Bearer ${alnum(40)}` },
      max_tokens: 1024,
      list: [`sk-${alnum(30)}`, 'plain'],
      empty: { token: '' },
    };
    expect(maskSecrets(value)).toEqual({
      password: '[masked: the name "password" suggests a secret]',
      headers: { Authorization: '[masked: the name "Authorization" suggests a secret]' },
      max_tokens: 1024,
      list: ['[masked: an API key (sk-…)]', 'plain'],
      empty: { token: '' },
    });
    expect(value.password).toBe('hunter2'); // the input is not changed
  });
});

describe('windows and hostile input', () => {
  it('a secret across a window edge is found once, by the window it starts in', () => {
    const gh = `ghp_${alnum(36)}`;
    const text = `${'x '.repeat(500)}${gh} ${'y '.repeat(500)}`;
    const at = text.indexOf(gh);
    const windows = [
      [0, at + 10],
      [at + 10, text.length],
    ] as const;
    const found = windows.flatMap(([from, to]) => secretShapes(text, from, to));
    expect(found).toEqual([{ start: at, end: at + gh.length, what: 'a GitHub token (ghp_…)', shown: 'ghp_…' }]);
  });

  it('a window does not take the middle of a longer word for a secret start', () => {
    const text = `xsk-${alnum(30)}`;
    expect(secretShapes(text, 1, text.length)).toEqual([]);
  });

  it('stays linear where every position could start a token ("-eyJ" and "sk-" repeated, 1 MB)', () => {
    // Quadratic matching would not finish within the test's time; linear takes milliseconds.
    for (const unit of ['-eyJ', 'sk-a ', 'Bearer  ', 'SG.a', '-----BEGIN ']) {
      const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
      expect(() => maskText(text)).not.toThrow();
      expect(secretShapes(text).length).toBeLessThanOrEqual(1);
    }
  });
});
