// Stdio servers never inherit the broker's environment: only what a process needs to run, the
// variables that say how to reach the network and which certificates to trust (network-env.ts, unless
// the person took them away), plus what the person configured for that server.
import { defaultNetworkEnv } from '../../../shared/network-env.js';

const POSIX_KEEP = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ'];
const WINDOWS_KEEP = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'TMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
  'COMSPEC',
  'WINDIR',
];

/**
 * `pass`: names the person chose to pass on besides the defaults (their limits' `passEnv`);
 * `noPass`: network variables they took away (`noPassEnv`, `*` for all).
 */
export function scrubbedEnv(
  configured: Record<string, string> | undefined,
  source: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  pass: string[] = [],
  noPass: string[] = [],
): Record<string, string> {
  const fold = (n: string): string => (platform === 'win32' ? n.toUpperCase() : n);
  const keep = new Set([...(platform === 'win32' ? WINDOWS_KEEP : POSIX_KEEP), ...defaultNetworkEnv(noPass), ...pass].map(fold));
  const env: Record<string, string> = {};
  for (const key of Object.keys(source)) {
    // Windows env names are case-insensitive (Path vs PATH).
    const value = source[key];
    if (keep.has(fold(key)) && value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return { ...env, ...(configured ?? {}) };
}
