// `connect`'s report connection (relay mode): a socket of its own for the reports of the calls it runs,
// which the broker reads in batches (report-reader.ts). A report is one line, written at once; the
// count of lines written goes with each decide request, so the broker can read up to it first.
import type { Socket } from 'node:net';
import { HANDSHAKE_VERSION, readFirstLine } from '../../local/handshake.js';
import { openSocket } from './attached-upstream.js';
import type { Report } from '../protocol.js';

export interface ReportLink {
  readonly socket: Socket;
  /** Lines written so far. */
  readonly written: number;
  send(item: Report): void;
}

/** Opens it and waits for the broker to bind it to the session: only then may a call be reported on it. */
export async function openReportLink(path: string, token: string): Promise<ReportLink> {
  const socket = await openSocket(path);
  socket.on('error', () => undefined);
  socket.write(JSON.stringify({ countersign: HANDSHAKE_VERSION, reports: token }) + '\n');
  let reply: { ok?: unknown };
  try {
    reply = JSON.parse(await readFirstLine(socket)) as { ok?: unknown };
  } catch (err) {
    socket.destroy();
    throw err;
  }
  if (reply.ok !== true) {
    socket.destroy();
    throw new Error('the broker refused the report connection');
  }
  let written = 0;
  return {
    socket,
    get written() {
      return written;
    },
    send(item) {
      written += 1;
      socket.write(JSON.stringify({ items: [item] }) + '\n');
    },
  };
}
