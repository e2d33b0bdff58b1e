// What to do when the sandbox probe fails: bubblewrap's error, read as the kernel setting or package
// that would make it work. Shown in the status and in every refusal of a server under limits.

export const INSTALL_BUBBLEWRAP =
  'install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), then restart Countersign';

/** bubblewrap older than 0.8 does not know the flag. */
export const NO_DISABLE_USERNS = /unknown option.*--disable-userns|unrecognized option.*disable-userns/i;

export const oldBubblewrap = {
  caveat: 'this bubblewrap is older than 0.8: it cannot stop the server from making a user namespace of its own (the kernel then is its only bound)',
  fix: 'upgrade bubblewrap to 0.8 or later',
};

/** The fix for a namespace bubblewrap could not make, from its error. */
export function namespaceFix(why: string, what: 'sandbox' | 'network' = 'sandbox'): string {
  const restart = ', then restart Countersign';
  if (/no space left|ENOSPC|max_\S*namespaces/i.test(why)) {
    return `allow user namespaces: sudo sysctl -w user.max_user_namespaces=15000 (if it is 0); inside another sandbox or container, let it make user namespaces${restart}`;
  }
  if (/unprivileged_userns_clone|non-privileged user namespaces/i.test(why)) {
    return `allow unprivileged user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1${restart}`;
  }
  if (/uid map|gid map|setgroups/i.test(why)) {
    return `allow unprivileged user namespaces for bubblewrap (Ubuntu 23.10 and later: an AppArmor profile for /usr/bin/bwrap, or sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)${restart}`;
  }
  if (what === 'network')
    return `allow network namespaces for unprivileged users (in a container: start it with a seccomp profile that permits unshare(CLONE_NEWNET))${restart}`;
  if (/operation not permitted|permission denied/i.test(why)) {
    return `allow user namespaces here (in a container: start it with a seccomp profile that permits unshare and mount, or run Countersign on the host)${restart}`;
  }
  return `run bwrap --unshare-user --unshare-pid --unshare-ipc --unshare-uts --cap-drop ALL --ro-bind / / true to see what fails${restart}`;
}
