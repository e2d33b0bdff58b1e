// The managed policy's ownership rule (ssh StrictModes) on real files: every spelling of "someone other
// than root could have written it" is refused with the fix; a root-owned file in root-owned folders counts.
import { chmodSync, lchownSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkOwnership, checkWindowsOwnership, realDeps, type OwnershipDeps } from '../../electron/broker/policy/managed-ownership.js';
import { locateManaged, osManagedPath, readProfileKeys } from '../../electron/broker/policy/managed-paths.js';
import { managedFolder, NOBODY, type ManagedFolder } from '../helpers/managed-folder.js';

const POLICY = { version: 1 };
// Countersign run by root here; the "user who runs it" cases set their own uid and access check.
const asRoot: OwnershipDeps = { ...realDeps(), uid: 0 };

describe('managed policy ownership (POSIX)', () => {
  let m: ManagedFolder;
  beforeEach(() => (m = managedFolder()));
  afterEach(() => m.remove());

  it('counts a root-owned 0644 file in root-owned 0755 folders', () => {
    expect(checkOwnership(m.write('p.json', POLICY), asRoot)).toEqual({ ok: true });
  });

  it.each([
    ['a file owned by nobody', { uid: NOBODY }, /owned by uid 65534/],
    ['a group-writable file', { mode: 0o664 }, /writable by its group \(mode 0664\)/],
    ['a world-writable file', { mode: 0o646 }, /writable by every user/],
  ])('ignores %s, with the chown/chmod fix', (_what, o, why) => {
    const file = m.write('p.json', POLICY, o);
    const v = checkOwnership(file, asRoot);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.why).toMatch(why);
    expect(v.fix).toBe(`sudo chown root:root '${file}' && sudo chmod 644 '${file}'`);
  });

  it('ignores a file under a world-writable or group-writable or nobody-owned parent', () => {
    for (const [o, why] of [
      [{ mode: 0o777 }, /writable by every user/],
      [{ mode: 0o775 }, /writable by its group/],
      [{ uid: NOBODY }, /owned by uid 65534/],
    ] as const) {
      const dir = m.folder(`d${o.mode ?? o.uid}`, o);
      const v = checkOwnership(m.write(`d${o.mode ?? o.uid}/p.json`, POLICY), asRoot);
      expect(v.ok ? '' : v.why).toMatch(why);
      expect(v.ok ? '' : v.why).toContain(`'${dir}'`);
      expect(v.ok ? '' : v.fix).toBe(`sudo chown root:root '${dir}' && sudo chmod 755 '${dir}'`);
    }
  });

  it('ignores a file in the sticky, world-writable /tmp, and says to move it (not to chmod /tmp)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-managed-'));
    try {
      chmodSync(dir, 0o755);
      const file = join(dir, 'p.json');
      writeFileSync(file, '{}', { mode: 0o644 });
      const v = checkOwnership(file, asRoot);
      expect(v.ok ? '' : v.why).toMatch(/^'\/tmp' is writable by every user \(mode 1777\), sticky or not/);
      expect(v.ok ? '' : v.fix).toMatch(/^move the file to a folder only root can write/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows a symlinked component: a root-owned link to a root-owned target counts; a link nobody owns, or to a place nobody owns, does not', () => {
    const real = m.folder('real');
    m.write('real/p.json', POLICY);
    symlinkSync(real, join(m.dir, 'via-root'));
    expect(checkOwnership(join(m.dir, 'via-root', 'p.json'), asRoot)).toEqual({ ok: true });

    symlinkSync(real, join(m.dir, 'via-nobody'));
    lchownSync(join(m.dir, 'via-nobody'), NOBODY, NOBODY);
    const byNobody = checkOwnership(join(m.dir, 'via-nobody', 'p.json'), asRoot);
    expect(byNobody.ok ? '' : byNobody.why).toMatch(/via-nobody' is owned by uid 65534/);

    const theirs = m.folder('theirs', { uid: NOBODY });
    m.write('theirs/p.json', POLICY);
    symlinkSync(join(theirs, 'p.json'), join(m.dir, 'link.json'));
    const toNobody = checkOwnership(join(m.dir, 'link.json'), asRoot);
    expect(toNobody.ok ? '' : toNobody.why).toMatch(/link\.json' is a symlink to '.*theirs\/p\.json': '.*theirs' is owned by uid 65534/);
  });

  it('ignores a relative path (as COUNTERSIGN_MANAGED_POLICY might give), a missing file, and an unresolvable link', () => {
    expect(checkOwnership('managed-policy.json', asRoot)).toMatchObject({ ok: false, why: expect.stringMatching(/not absolute/) });
    // After a symlink, `..` climbs from the link's target: never normalized away and checked elsewhere.
    m.write('p.json', POLICY);
    symlinkSync('/tmp', join(m.dir, 'tmp-link'));
    expect(checkOwnership(join(m.dir, 'tmp-link') + '/../p.json', asRoot)).toMatchObject({ ok: false, why: expect.stringMatching(/has '\.' or '\.\.' in it/) });
    expect(checkOwnership(`${m.dir}/./p.json`, asRoot).ok).toBe(false);
    expect(checkOwnership(join(m.dir, 'none.json'), asRoot)).toMatchObject({ ok: false, why: expect.stringMatching(/cannot be examined \(ENOENT\)/) });
    symlinkSync(join(m.dir, 'gone.json'), join(m.dir, 'dangling.json'));
    expect(checkOwnership(join(m.dir, 'dangling.json'), asRoot)).toMatchObject({ ok: false, why: expect.stringMatching(/cannot be resolved/) });
  });

  it('passes the ownership of a root-owned directory (the source then fails closed reading it)', () => {
    expect(checkOwnership(m.folder('p.json'), asRoot)).toEqual({ ok: true });
    const theirs = m.folder('q.json', { uid: NOBODY });
    expect(checkOwnership(theirs, asRoot).ok).toBe(false);
  });

  it('refuses a root-owned file the running user can write anyway (an ACL), with setfacl in the fix', () => {
    const file = m.write('p.json', POLICY);
    const v = checkOwnership(file, { ...realDeps(), uid: 1000, writable: (p) => p === file });
    expect(v.ok ? '' : v.why).toMatch(/writable by the user who runs Countersign \(uid 1000\)/);
    expect(v.ok ? '' : v.fix).toMatch(/^sudo setfacl -b/);
  });
});

describe('managed policy ownership (Windows, icacls)', () => {
  const acl = (path: string, lines: string[]) =>
    `${path} ${lines[0]}\n${lines
      .slice(1)
      .map((l) => ' '.repeat(path.length + 1) + l)
      .join('\n')}\n\nSuccessfully processed 1 files`;
  const safe = ['NT AUTHORITY\\SYSTEM:(I)(F)', 'BUILTIN\\Administrators:(I)(F)', 'BUILTIN\\Users:(I)(RX)', 'CREATOR OWNER:(I)(OI)(CI)(IO)(F)'];

  it('counts a file only Administrators and SYSTEM may write', () => {
    const file = 'C:\\ProgramData\\Countersign\\managed-policy.json';
    expect(checkWindowsOwnership(file, (p) => acl(p, safe))).toEqual({ ok: true });
  });

  it.each([['(M)'], ['(W)'], ['(F)'], ['(OI)(CI)(WD,AD)'], ['(I)(OI)(CI)(M)']])('refuses Users holding %s on a folder above it', (rights) => {
    const file = 'C:\\ProgramData\\Countersign\\managed-policy.json';
    const v = checkWindowsOwnership(file, (p) => acl(p, p === 'C:\\ProgramData' ? [...safe, `BUILTIN\\Users:${rights}`] : safe));
    expect(v.ok ? '' : v.why).toBe(`'C:\\ProgramData' gives BUILTIN\\Users write rights ${rights}`);
    expect(v.ok ? '' : v.fix).toMatch(/^icacls "C:\\ProgramData" \/remove "BUILTIN\\Users"/);
  });

  it('refuses a relative path and an unreadable ACL', () => {
    expect(checkWindowsOwnership('Countersign\\p.json', () => '').ok).toBe(false);
    expect(
      checkWindowsOwnership('C:\\x\\p.json', () => {
        throw new Error('access denied');
      }),
    ).toMatchObject({ ok: false, why: expect.stringMatching(/access denied/) });
  });
});

describe('managed policy paths', () => {
  it('names the OS path of each platform', () => {
    expect(osManagedPath('linux', {})).toBe('/etc/countersign/managed-policy.json');
    expect(osManagedPath('darwin', {})).toBe('/Library/Application Support/Countersign/managed-policy.json');
    expect(osManagedPath('win32', { ProgramData: 'D:\\PD' })).toBe('D:\\PD\\Countersign\\managed-policy.json');
    expect(osManagedPath('win32', {})).toBe('C:\\ProgramData\\Countersign\\managed-policy.json');
  });

  it('follows an override only when no policy is deployed at the OS path: it can never hide one', () => {
    const env = { COUNTERSIGN_MANAGED_POLICY: '/home/me/loose.json' };
    expect(locateManaged({ env, platform: 'linux', exists: () => false })).toEqual({ path: '/home/me/loose.json', from: 'environment' });
    expect(locateManaged({ env, platform: 'linux', exists: (p) => p === '/etc/countersign/managed-policy.json' })).toEqual({
      path: '/etc/countersign/managed-policy.json',
      from: 'os',
      overrideIgnored: '/home/me/loose.json',
    });
    expect(locateManaged({ option: '/o.json', env, platform: 'linux', exists: () => false })).toEqual({ path: '/o.json', from: 'option' });
  });

  it("reads a configuration profile's keys through plutil, dropping its Payload bookkeeping", () => {
    const seen: string[][] = [];
    const keys = readProfileKeys('/Library/Managed Preferences/com.countersign.policy.plist', (file, args) => {
      seen.push([file, ...args]);
      return JSON.stringify({ version: 1, block: ['x'], PayloadUUID: 'u' });
    });
    expect(keys).toEqual({ version: 1, block: ['x'] });
    expect(seen).toEqual([['/usr/bin/plutil', '-convert', 'json', '-o', '-', '/Library/Managed Preferences/com.countersign.policy.plist']]);
    expect(() => readProfileKeys('/p.plist', () => '[1]')).toThrow(/does not hold a dictionary/);
  });
});
