// `countersign policy hash <package folder | docker image>`: what an administrator puts in a catalogue
// entry. For an installed npm package, its content hash as Countersign computes it before each start
// (trust/packages/package-hash.ts, the hash pins record); for a pulled image, its digest. Offline but
// for nothing: npm's dist.integrity comes from `npm view`, PyPI's hashes from PyPI (docs/admin.md).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { escapeControl as e } from '../../shared/escape.js';
import { hashPackageDir } from '../broker/trust/packages/package-hash.js';
import { UsageError } from './args.js';

const run = promisify(execFile);
const say = (text: string): void => void process.stdout.write(text);

export async function runPolicyHash(args: string[]): Promise<number> {
  const [what, ...extra] = args;
  if (!what || extra.length) throw new UsageError('policy hash needs one installed package folder or one docker image');
  if (existsSync(what) && statSync(what).isDirectory()) return packageHash(path.resolve(what));
  return imageDigest(what);
}

async function packageHash(dir: string): Promise<number> {
  let manifest: { name?: unknown; version?: unknown };
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    throw new UsageError(`${dir} holds no package.json: name the folder of an installed package (…/node_modules/<name>)`);
  }
  const contentHash = await hashPackageDir(dir);
  const name = typeof manifest.name === 'string' ? manifest.name : '<name>';
  const version = typeof manifest.version === 'string' ? manifest.version : '<version>';
  say(`${e(name)}@${e(version)} in ${e(dir)}\ncontent ${contentHash}\n`);
  say(`For npm's integrity: npm view ${e(name)}@${e(version)} dist.integrity\n`);
  say(`Catalogue entry: ${JSON.stringify({ name, source: { npm: { name, version, contentHash } } })}\n`);
  return 0;
}

async function imageDigest(image: string): Promise<number> {
  let digests: string[];
  try {
    const { stdout } = await run('docker', ['image', 'inspect', '--format', '{{json .RepoDigests}}', image], { timeout: 30_000 });
    digests = JSON.parse(stdout) as string[];
  } catch (err) {
    throw new UsageError(`${e(image)} is neither a package folder nor an image docker can inspect here (${e((err as Error).message.split('\n')[0] ?? '')})`);
  }
  const digest = digests[0]?.split('@')[1];
  if (!digest) throw new UsageError(`${e(image)} has no registry digest: pull it from its registry first`);
  say(
    `${e(image)}\ndigest ${e(digest)}\nCatalogue entry: ${JSON.stringify({ name: image, source: { docker: { image: image.replace(/@.*$/, ''), digest } } })}\n`,
  );
  return 0;
}
