// The local socket's secret for one broker run: the broker writes it into the data dir as it starts
// (mode 0600; a sandbox never sees the data dir), and `connect` and the CLI read it to prove they may use
// the socket. No node:crypto here: `connect` loads this module, and must start light.
import fs from 'node:fs';
import path from 'node:path';

export const SECRET_FILE = 'socket-secret.json';
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface SocketSecret {
  /** `connect` presents it as is in its hello: it opens a session of one server, nothing of the API. */
  connect: string;
  /** Never sent: the CLI proves it knows it by an HMAC over the broker's challenge (api-handshake.ts). */
  api: string;
}

export type SecretRead = { ok: true; secret: SocketSecret } | { ok: false; file: string; code?: string; why: string };

export function secretFile(dataDir: string): string {
  return path.join(dataDir, SECRET_FILE);
}

export function isSocketSecret(value: unknown): value is SocketSecret {
  const v = value as Partial<SocketSecret> | null;
  return (
    !!v &&
    typeof v === 'object' &&
    typeof v.connect === 'string' &&
    SECRET_PATTERN.test(v.connect) &&
    typeof v.api === 'string' &&
    SECRET_PATTERN.test(v.api) &&
    v.connect !== v.api
  );
}

export function readSocketSecret(dataDir: string): SecretRead {
  const file = secretFile(dataDir);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, file, code: e.code, why: e.message };
  }
  try {
    const value: unknown = JSON.parse(text);
    if (isSocketSecret(value)) return { ok: true, secret: { connect: value.connect, api: value.api } };
  } catch {
    // Said below.
  }
  return { ok: false, file, why: 'it is not a socket secret Countersign wrote' };
}

/** Why this process cannot use the running broker's socket, in words for the person. */
export function unreadableSecret(r: { file: string; code?: string; why: string }): string {
  if (r.code === 'EACCES' || r.code === 'EPERM') {
    return `this process may not read ${r.file} (${r.code}), which proves a command may use Countersign's broker. Run it as the user who runs Countersign.`;
  }
  if (r.code === 'ENOENT') {
    return `${r.file} is not there for this process: it runs where Countersign's data folder is hidden (a sandbox), or the broker that runs did not write it (an older Countersign, or the file was removed; restart Countersign).`;
  }
  return `${r.file} could not be read (${r.why}). Restart Countersign to write a new one.`;
}
