// Whether Countersign may replace a client's config file. A file (or its folder) the person made
// read-only is theirs to keep that way: root could write it anyway, so the mode bits are read as the
// person's word, not only what the kernel would allow. The answer says how to allow it.
import fs from 'node:fs';
import path from 'node:path';

const quoted = (p: string): string => (process.platform === 'win32' ? `"${p}"` : `'${p.replace(/'/g, "'\\''")}'`);

/** Why the file must not be replaced, with the fix; undefined when it may be. */
export function readOnlyReason(file: string): string | undefined {
  const dir = path.dirname(file);
  const win = process.platform === 'win32';
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return undefined; // a missing file is not written over
  }
  if ((st.mode & 0o200) === 0) {
    return win
      ? `it is read-only. To wrap it, clear its Read-only attribute (attrib -R ${quoted(file)}), then run wrap again`
      : `it is read-only (mode ${(st.mode & 0o777).toString(8)}). To wrap it, make it writable (chmod u+w ${quoted(file)}), then run wrap again`;
  }
  const dirMode = fs.statSync(dir).mode;
  if (!win && (dirMode & 0o200) === 0) {
    return `its folder is read-only (mode ${(dirMode & 0o777).toString(8)}), and Countersign replaces a file by writing a new one beside it. To wrap it, make the folder writable (chmod u+w ${quoted(dir)}), then run wrap again`;
  }
  for (const [target, what] of [
    [file, 'the file'],
    [dir, 'its folder'],
  ] as const) {
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'an error';
      const why =
        code === 'EROFS'
          ? 'is on a read-only file system'
          : code === 'EPERM'
            ? `cannot be changed (EPERM${win ? '' : '; it may be immutable: lsattr shows an i'})`
            : `cannot be written to by this user (${code})`;
      return `${what} ${why}. Countersign leaves it as it is`;
    }
  }
  return undefined;
}
