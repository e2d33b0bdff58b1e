// A fingerprint of an installed package's own files: every file's path, executable bit and content
// (symlinks by their target), sorted, without its nested node_modules (its dependencies). Same files,
// same hash, wherever the package is installed.
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';

const MAX_FILES = 20_000;

export async function hashPackageDir(dir: string): Promise<string> {
  const entries: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(path.join(dir, rel))).sort();
    for (const name of names) {
      const relPath = rel ? `${rel}/${name}` : name;
      if (name === 'node_modules' && !rel) continue;
      const full = path.join(dir, relPath);
      const st = await lstat(full);
      if (entries.length >= MAX_FILES) throw new Error(`${dir} holds more than ${MAX_FILES} files`);
      if (st.isSymbolicLink()) entries.push(`L ${relPath} ${await readlink(full)}`);
      else if (st.isDirectory()) await walk(relPath);
      else if (st.isFile()) {
        const digest = createHash('sha256')
          .update(await readFile(full))
          .digest('hex');
        entries.push(`F ${relPath} ${st.mode & 0o111 ? 'x' : '-'} ${digest}`);
      }
    }
  };
  await walk('');
  return `sha256:${createHash('sha256').update(entries.join('\n')).digest('hex')}`;
}
