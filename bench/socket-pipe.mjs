// Like byte-pipe.mjs, but the server's stdin and stdout are one end of a Unix socket, as in relay mode
// (where the broker starts the server on `connect`'s data connection): the floor for that topology.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [command, ...args] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'cs-socket-pipe-'));
const path = join(dir, 's');
const server = createServer((accepted) => {
  const child = spawn(command, args, { stdio: [accepted, accepted, 'ignore'] });
  child.once('spawn', () => accepted.destroy());
  child.on('exit', (code) => process.exit(code ?? 1));
  server.close();
});
server.listen(path, () => {
  const ours = createConnection(path);
  process.stdin.pipe(ours);
  ours.pipe(process.stdout);
  process.stdin.on('end', () => ours.end());
  ours.on('error', () => process.exit(1));
});
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
