// Stdio servers never inherit the broker's environment: only what a process needs to run, plus
// what the person configured for that server.

const POSIX_KEEP = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ'];
const WINDOWS_KEEP = [
  'APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PATHEXT', 'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'TMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES', 'COMSPEC', 'WINDIR',
];

/** `pass`: names the person chose to pass on besides the defaults (their limits' `passEnv`). */
export function scrubbedEnv(
  configured: Record<string, string> | undefined,
  source: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  pass: string[] = [],
): Record<string, string> {
  const keep = [...(platform === 'win32' ? WINDOWS_KEEP : POSIX_KEEP), ...(platform === 'win32' ? pass.map((n) => n.toUpperCase()) : pass)];
  const env: Record<string, string> = {};
  for (const key of Object.keys(source)) {
    // Windows env names are case-insensitive (Path vs PATH).
    const match = platform === 'win32' ? keep.includes(key.toUpperCase()) : keep.includes(key);
    const value = source[key];
    if (match && value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return { ...env, ...(configured ?? {}) };
}
