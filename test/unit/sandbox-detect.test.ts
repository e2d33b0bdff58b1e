// Detection answers from a real probe run, never from the platform or a binary merely being there.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../electron/broker/upstream/sandbox/detect.js';
import { removeDir } from '../helpers/broker-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'cs-detect-'));
afterAll(() => removeDir(dir));

/** A stand-in bwrap that fails as a kernel without user namespaces makes the real one fail. */
function fakeBwrap(name: string, script: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe.skipIf(process.platform === 'win32')('sandbox detection', () => {
  it('reports a bubblewrap that is installed but cannot make namespaces, with its own words', async () => {
    const path = fakeBwrap(
      'no-userns',
      'echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2; exit 1',
    );
    expect(await detectSandbox({ platform: 'linux', bwrapPaths: [path] })).toEqual({
      kind: 'none',
      reason:
        'bubblewrap cannot make a sandbox here (bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.)',
      fix: 'allow unprivileged user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1, then restart Countersign',
    });
  });

  it('keeps the PID namespace but does not claim the network when only --unshare-net fails', async () => {
    const path = fakeBwrap(
      'no-netns',
      'for a in "$@"; do [ "$a" = --unshare-net ] && { echo "bwrap: loopback: Failed RTM_NEWADDR" >&2; exit 1; }; done; exit 0',
    );
    expect(await detectSandbox({ platform: 'linux', bwrapPaths: [path] })).toEqual({
      kind: 'bubblewrap',
      path,
      network: false,
      nestedUserns: 'blocked',
      networkReason: 'no network namespace here (bwrap: loopback: Failed RTM_NEWADDR)',
      fix: expect.stringContaining('allow network namespaces'),
    });
  });

  it('takes the first bubblewrap that exists, and says where it looked when none does', async () => {
    const ok = fakeBwrap('works', 'exit 0');
    expect(await detectSandbox({ platform: 'linux', bwrapPaths: [join(dir, 'absent'), ok] })).toEqual({
      kind: 'bubblewrap',
      path: ok,
      network: true,
      nestedUserns: 'blocked',
    });
    expect(await detectSandbox({ platform: 'linux', bwrapPaths: [join(dir, 'absent')] })).toEqual({
      kind: 'none',
      reason: `bubblewrap is not installed (looked for ${join(dir, 'absent')})`,
      fix: expect.stringContaining('sudo apt-get install bubblewrap'),
    });
  });

  it('has nothing to offer on Windows, and checks sandbox-exec on macOS by running it', async () => {
    expect(await detectSandbox({ platform: 'win32' })).toMatchObject({ kind: 'none', reason: 'no sandbox is available on win32' });
    const broken = fakeBwrap('sandbox-exec', 'echo "sandbox-exec: sandbox_apply: Operation not permitted" >&2; exit 71');
    expect(await detectSandbox({ platform: 'darwin', sandboxExecPath: broken })).toMatchObject({
      kind: 'none',
      reason: 'sandbox-exec does not work here (sandbox-exec: sandbox_apply: Operation not permitted)',
    });
  });

  it('probes with every flag a server gets: a bubblewrap that ignored one of them would not be taken as working', async () => {
    const seen = join(dir, 'argv');
    const path = fakeBwrap('records', `printf '%s\\n' "$@" >> ${seen}; exit 0`);
    await detectSandbox({ platform: 'linux', bwrapPaths: [path] });
    const argv = readFileSync(seen, 'utf8').split('\n');
    for (const flag of [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--cap-drop',
      '--disable-userns',
      '--remount-ro',
      '--unshare-net',
    ])
      expect(argv, flag).toContain(flag);
  });
});
