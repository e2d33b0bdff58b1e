// Two ends of one real Unix socket connection, the accepting end from a server made with `options` (as
// the broker's servers are). Closed, with its folder removed, by the returned `close`.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type ServerOpts, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface UnixSocketPair {
  /** The end that connected (connect's side). */
  client: Socket;
  /** The end the server accepted (the broker's side). */
  accepted: Socket;
  close(): void;
}

export async function unixSocketPair(options: ServerOpts = {}): Promise<UnixSocketPair> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-socket-pair-'));
  const server = createServer(options);
  const file = path.join(dir, 's');
  await new Promise<void>((resolve) => server.listen(file, resolve));
  const accepting = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const client = connect(file);
  await new Promise((resolve) => client.once('connect', resolve));
  const accepted = await accepting;
  return {
    client,
    accepted,
    close() {
      client.destroy();
      accepted.destroy();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
