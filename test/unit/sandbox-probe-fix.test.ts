// bubblewrap's errors, read as the fix a person can apply: what the status and every refusal show.
import { describe, expect, it } from 'vitest';
import { namespaceFix, NO_DISABLE_USERNS } from '../../electron/broker/upstream/sandbox/probe-fix.js';

describe('the fix for a sandbox that cannot start', () => {
  it("names the kernel setting behind each of bubblewrap's errors", () => {
    expect(namespaceFix('bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)')).toMatch(
      /^allow user namespaces: sudo sysctl -w user\.max_user_namespaces=15000/,
    );
    expect(namespaceFix('bwrap: Creating new namespace failed: No space left on device')).toContain('user.max_user_namespaces');
    expect(
      namespaceFix(
        "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.",
      ),
    ).toContain('sudo sysctl -w kernel.unprivileged_userns_clone=1');
    expect(namespaceFix('bwrap: setting up uid map: Permission denied')).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
    expect(namespaceFix('bwrap: Creating new namespace failed: Operation not permitted')).toContain('seccomp profile that permits unshare');
    expect(namespaceFix('bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted', 'network')).toContain('network namespaces');
    expect(namespaceFix('something else')).toContain('to see what fails');
  });

  it('knows an old bubblewrap by its refusal of --disable-userns', () => {
    expect(NO_DISABLE_USERNS.test('bwrap: Unknown option --disable-userns')).toBe(true);
    expect(NO_DISABLE_USERNS.test('bwrap: --disable-userns requires --unshare-user')).toBe(false);
  });
});
