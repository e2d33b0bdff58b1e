// The broker's side of the socket secret: a new one for each run, written before the socket listens
// and removed when it closes. A new run never accepts an old run's secret.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { readSocketSecret, secretFile, type SocketSecret } from './secret-file.js';

export interface PublishedSecret {
  secret: SocketSecret;
  file: string;
  /** Removes the file if it still holds this run's secret (another run's is left alone). */
  remove(): void;
}

export function publishSocketSecret(dataDir: string): PublishedSecret {
  const secret: SocketSecret = { connect: randomBytes(32).toString('base64url'), api: randomBytes(32).toString('base64url') };
  const file = secretFile(dataDir);
  // Replaces the last run's file whole: it was only ever that run's (we hold the data dir's lock).
  writeFileAtomicSync(file, JSON.stringify({ version: 1, ...secret }) + '\n', 0o600);
  return {
    secret,
    file,
    remove: () => {
      const now = readSocketSecret(dataDir);
      if (now.ok && now.secret.api === secret.api) fs.rmSync(file, { force: true });
    },
  };
}
