// The real CLI (dist) as a person runs it against one data dir: output and exit code, never a throw.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI, NODE } from './paths.js';

const run = promisify(execFile);

export async function runCli(dataDir: string, ...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(NODE, [CLI, '--data-dir', dataDir, ...args], { env: { ...process.env, COUNTERSIGN_HOME: '' } });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

/**
 * `servers approve|trust|pin <name>` as a script that was shown the server grants it: without a terminal
 * it names what it grants (--yes with the launch hash and, when there is one, the listing hash).
 */
export async function grantCli(
  dataDir: string,
  verb: 'approve' | 'trust' | 'pin',
  name: string,
  ...extra: string[]
): Promise<{ stdout: string; stderr: string; code: number }> {
  const shown = await runCli(dataDir, 'servers', 'show', name, '--json');
  if (shown.code !== 0) return shown;
  const view = JSON.parse(shown.stdout) as { launch: { hash: string }; listingHash?: string };
  const listing = verb !== 'approve' && view.listingHash ? ['--listing', view.listingHash] : [];
  return runCli(dataDir, 'servers', verb, name, '--yes', '--hash', view.launch.hash, ...listing, ...extra);
}
