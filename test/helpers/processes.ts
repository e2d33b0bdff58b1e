// Looking at processes from a test: is one alive, and waiting for some to be gone.

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True once none of `pids` is alive; false if some still are after `ms`. */
export async function allGone(pids: number[], ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end && pids.some(alive)) await new Promise((r) => setTimeout(r, 50));
  return !pids.some(alive);
}
