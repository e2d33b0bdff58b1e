// Asks the package's own registry which exact version (or image digest) a launch would run today, and
// what that version's published content is (npm `dist.integrity`, PyPI file hashes, the image digest).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { PackageLaunch } from './package-launch.js';

const run = promisify(execFile);

export interface ResolvedVersion {
  version: string;
  /** The registry's integrity for that version (`sha512-…` for npm, `sha256-…` per PyPI file, the digest for docker). */
  integrity?: string[];
}

/** Replaceable in tests; a plain version string is accepted too. */
export type VersionResolver = (launch: PackageLaunch) => Promise<string | ResolvedVersion>;

export function asResolved(value: string | ResolvedVersion): ResolvedVersion {
  return typeof value === 'string' ? { version: value } : value;
}

async function npm(launch: PackageLaunch): Promise<ResolvedVersion> {
  const spec = launch.version ? `${launch.name}@${launch.version}` : launch.name;
  const { stdout } = await run('npm', ['view', spec, 'version', 'dist.integrity', '--json'], { timeout: 30_000, shell: process.platform === 'win32' });
  const parsed: unknown = JSON.parse(stdout);
  // One version gives an object; a range gives one per matching version, oldest first.
  const last = (Array.isArray(parsed) ? parsed.at(-1) : parsed) as { version?: unknown; 'dist.integrity'?: unknown } | undefined;
  if (typeof last?.version !== 'string') throw new Error(`npm gave no version for ${spec}`);
  const integrity = typeof last['dist.integrity'] === 'string' ? [last['dist.integrity']] : undefined;
  return { version: last.version, integrity };
}

async function pypi(launch: PackageLaunch): Promise<ResolvedVersion> {
  // An exact version is asked for by name: its own files, not the latest release's.
  const which = launch.exact && launch.version ? `${encodeURIComponent(launch.name)}/${encodeURIComponent(launch.version)}` : encodeURIComponent(launch.name);
  const res = await fetch(`https://pypi.org/pypi/${which}/json`, { signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`PyPI answered ${res.status}`);
  const body = (await res.json()) as { info?: { version?: unknown }; urls?: Array<{ filename?: unknown; digests?: { sha256?: unknown } }> };
  if (typeof body.info?.version !== 'string') throw new Error('PyPI gave no version');
  // `urls` lists the wheels and sdist of that version: whichever uv picks, its hash is here.
  const integrity = (body.urls ?? []).flatMap((u) => (typeof u.digests?.sha256 === 'string' ? [`sha256-${u.digests.sha256} ${String(u.filename)}`] : []));
  return { version: body.info.version, integrity: integrity.length ? integrity : undefined };
}

async function docker(launch: PackageLaunch): Promise<ResolvedVersion> {
  const { stdout } = await run('docker', ['image', 'inspect', '--format', '{{json .RepoDigests}}', launch.name], { timeout: 30_000 });
  const digests = JSON.parse(stdout) as string[];
  const digest = digests[0]?.split('@')[1];
  if (!digest) throw new Error(`no digest for ${launch.name}; pull the image first`);
  return { version: digest, integrity: [digest] };
}

export const resolveExactVersion: VersionResolver = async (launch) => {
  try {
    if (launch.kind === 'npx') return await npm(launch);
    if (launch.kind === 'uvx') return await pypi(launch);
    return await docker(launch);
  } catch (err) {
    throw new Error(`Could not find the exact version of ${launch.name} (${launch.kind}): ${(err as Error).message}`);
  }
};
