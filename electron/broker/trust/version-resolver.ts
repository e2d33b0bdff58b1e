// Asks the package's own registry which exact version (or image digest) a launch would run today.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { PackageLaunch } from './package-launch.js';

const run = promisify(execFile);

export type VersionResolver = (launch: PackageLaunch) => Promise<string>;

export const resolveExactVersion: VersionResolver = async (launch) => {
  try {
    if (launch.kind === 'npx') {
      const spec = launch.version ? `${launch.name}@${launch.version}` : launch.name;
      const { stdout } = await run('npm', ['view', spec, 'version', '--json'], { timeout: 30_000, shell: process.platform === 'win32' });
      const parsed: unknown = JSON.parse(stdout);
      const version = Array.isArray(parsed) ? parsed.at(-1) : parsed;
      if (typeof version !== 'string') throw new Error(`npm gave no version for ${spec}`);
      return version;
    }
    if (launch.kind === 'uvx') {
      const res = await fetch(`https://pypi.org/pypi/${encodeURIComponent(launch.name)}/json`, { signal: AbortSignal.timeout(30_000) });
      if (!res.ok) throw new Error(`PyPI answered ${res.status}`);
      const body = (await res.json()) as { info?: { version?: unknown } };
      if (typeof body.info?.version !== 'string') throw new Error('PyPI gave no version');
      return body.info.version;
    }
    const { stdout } = await run('docker', ['image', 'inspect', '--format', '{{json .RepoDigests}}', launch.name], { timeout: 30_000 });
    const digests = JSON.parse(stdout) as string[];
    const digest = digests[0]?.split('@')[1];
    if (!digest) throw new Error(`no digest for ${launch.name}; pull the image first`);
    return digest;
  } catch (err) {
    throw new Error(`Could not find the exact version of ${launch.name} (${launch.kind}): ${(err as Error).message}`);
  }
};
