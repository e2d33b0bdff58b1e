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
