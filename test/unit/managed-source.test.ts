// The managed source's reading (file + macOS profile through a fake plutil), and the deny list's
// matching by name, package and command line.
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '../helpers/patience.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/api.js';
import { denyMatch, globRegExp } from '../../electron/broker/policy/managed-deny.js';
import { checkOwnership, realDeps } from '../../electron/broker/policy/managed-ownership.js';
import { ManagedPolicySource } from '../../electron/broker/policy/managed-source.js';
import { managedFolder, type ManagedFolder } from '../helpers/managed-folder.js';

const R = 'reviewed';
const npx = (spec: string): ServerConfig => ({ command: '/usr/bin/npx', args: ['-y', spec] });

describe('deny list', () => {
  it('globs are anchored and literal beside * and ?', () => {
    expect(globRegExp('a.b*').test('a.bcd')).toBe(true);
    expect(globRegExp('a.b*').test('axbcd')).toBe(false);
    expect(globRegExp('x?').test('xy')).toBe(true);
    expect(globRegExp('x?').test('xyz')).toBe(false);
  });

  it('matches a package with or without its version, and a command by its line or bare name', () => {
    const deny = [
      { package: '@evil/*', reason: R },
      { command: 'npx -y shady@*', reason: R },
      { name: 'legacy-?', reason: R },
    ];
    expect(denyMatch(deny, 'a', npx('@evil/tool@1.2.3'))?.what).toBe("its package matches '@evil/*'");
    expect(denyMatch(deny, 'b', npx('shady@2.0.0'))?.what).toBe("its command matches 'npx -y shady@*'");
    expect(denyMatch(deny, 'legacy-1', { url: 'https://x.example/mcp' })?.what).toBe("its name matches 'legacy-?'");
    expect(denyMatch(deny, 'fine', npx('@good/tool@1.0.0'))).toBeUndefined();
    expect(denyMatch([{ command: 'https://evil.example/*', reason: R }], 'r', { url: 'https://evil.example/mcp' })).toBeDefined();
  });
});

describe('managed source with a configuration profile (macOS)', () => {
  let m: ManagedFolder;
  beforeEach(() => (m = managedFolder()));
  afterEach(() => m.remove());

  const source = (file: string, plist: string, run: (f: string, a: string[]) => string) =>
    new ManagedPolicySource({
      locate: () => ({ path: file, from: 'os' }),
      ownership: (p) => checkOwnership(p, { ...realDeps(), uid: 0 }),
      warn: () => undefined,
      profile: { path: plist, run },
    });

  it("reads the profile's keys over the file's, key by key", () => {
    const file = m.write('managed-policy.json', { version: 1, block: ['from-file'], alwaysAsk: [{ server: 's', tool: '*' }] });
    const plist = m.write('com.countersign.policy.plist', 'binary plist');
    const s = source(file, plist, () => JSON.stringify({ PayloadUUID: 'x', version: 1, block: ['from-profile'] })).current();
    expect(s.kind).toBe('loaded');
    if (s.kind !== 'loaded') return;
    expect(s.policy.block).toEqual(['from-profile']);
    expect(s.policy.alwaysAsk).toEqual([{ server: 's', tool: '*' }]);
    expect(s.profile).toBe(plist);
  });

  it('a profile alone counts; one plutil cannot read fails closed', () => {
    const plist = m.write('com.countersign.policy.plist', 'x');
    const none = join(m.dir, 'managed-policy.json');
    expect(source(none, plist, () => JSON.stringify({ version: 1, block: ['b'] })).current()).toMatchObject({ kind: 'loaded' });
    const broken = source(none, plist, () => {
      throw new Error('plutil: invalid property list');
    }).current();
    expect(broken).toMatchObject({ kind: 'broken', path: plist, error: 'plutil: invalid property list' });
    expect(
      source(none, plist, () => {
        throw new Error('x');
      }).blockReason('any'),
    ).toMatch(/could not be read/);
  });

  it('a profile another user owns is ignored', () => {
    const plist = m.write('com.countersign.policy.plist', 'x', { uid: 65534 });
    expect(source(join(m.dir, 'none.json'), plist, () => '{"version":1,"block":["b"]}').current()).toMatchObject({ kind: 'ignored', path: plist });
  });
});

describe('managed source: the fix takes effect without touching the file', () => {
  it('an ignored file counts once an administrator fixes the folder above it (and stops counting when it is loosened)', async () => {
    const m = managedFolder();
    try {
      const dir = m.folder('cs', { mode: 0o777 });
      const file = m.write('cs/managed-policy.json', { version: 1, block: ['b'] });
      const src = new ManagedPolicySource({
        locate: () => ({ path: file, from: 'os' }),
        ownership: (p) => checkOwnership(p, { ...realDeps(), uid: 0 }),
        warn: () => undefined,
      });
      expect(src.current()).toMatchObject({ kind: 'ignored', why: expect.stringContaining(`'${dir}' is writable by every user`) });
      chmodSync(dir, 0o755);
      await pollUntil(
        async () => src.current(),
        (s) => s.kind === 'loaded',
        'the managed policy to count',
      );
      chmodSync(dir, 0o775);
      await pollUntil(
        async () => src.current(),
        (s) => s.kind === 'ignored',
        'the managed policy to be ignored again',
      );
    } finally {
      m.remove();
    }
  });
});
