// Sends audit entries to a syslog receiver: TCP or TLS (octet counting, RFC 6587), UDP (one datagram
// each, cut to RFC 5426's 2048 octets), or a local stream socket. Stream transports keep one connection
// and open it again after any error. Syslog has no acknowledgement: a batch counts as sent once its
// bytes are written and the connection has not failed (docs/admin.md says what that allows).
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { AuditEntry } from '../../../shared/api.js';
import { syslogTarget, type AuditExportDestination } from '../../../shared/audit-export-schema.js';
import type { ExportSink } from './export-sink.js';
import { datagram, formatSyslog, octetCounted } from './syslog-format.js';

type SyslogDestination = NonNullable<AuditExportDestination['syslog']>;

export class SyslogSink implements ExportSink {
  readonly kind = 'syslog' as const;
  readonly target: string;
  private socket?: net.Socket;
  private udp?: dgram.Socket;
  /** Why the connection failed since the last batch (then that batch is not counted as sent). */
  private failure?: Error;

  constructor(
    private readonly d: SyslogDestination,
    private readonly timeoutMs = 10_000,
  ) {
    this.target = syslogTarget(d);
  }

  async send(entries: AuditEntry[]): Promise<void> {
    const messages = entries.map((e) => formatSyslog(e, { facility: this.d.facility, enterpriseId: this.d.enterpriseId }));
    if (this.d.transport === 'udp') return this.sendUdp(messages);
    const socket = await this.connected();
    this.failure = undefined;
    await new Promise<void>((resolve, reject) => {
      socket.write(Buffer.concat(messages.map(octetCounted)), (error) => (error ? reject(error) : resolve()));
    });
    // The connection failed while the batch was written: not counted as sent.
    const failed = this.failure as Error | undefined;
    if (failed) throw failed;
  }

  private sendUdp(messages: string[]): Promise<void> {
    const udp = (this.udp ??= dgram.createSocket(net.isIPv6(this.d.host!) ? 'udp6' : 'udp4').on('error', () => this.closeUdp()));
    return messages.reduce<Promise<void>>(
      (before, message) =>
        before.then(
          () =>
            new Promise<void>((resolve, reject) => {
              udp.send(datagram(message), this.d.port, this.d.host, (error) => (error ? reject(error) : resolve()));
            }),
        ),
      Promise.resolve(),
    );
  }

  private connected(): Promise<net.Socket> {
    if (this.socket && !this.socket.destroyed && this.socket.writable) return Promise.resolve(this.socket);
    this.socket?.destroy();
    this.socket = undefined;
    return new Promise((resolve, reject) => {
      const d = this.d;
      const socket =
        d.transport === 'tls'
          ? tls.connect({ host: d.host, port: d.port, servername: net.isIP(d.host!) ? undefined : d.host, ca: d.ca ? fs.readFileSync(d.ca) : undefined })
          : d.transport === 'unix'
            ? net.connect({ path: d.path! })
            : net.connect({ host: d.host, port: d.port! });
      const ready = d.transport === 'tls' ? 'secureConnect' : 'connect';
      const timer = setTimeout(() => socket.destroy(new Error(`no connection to ${this.target} within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      timer.unref();
      socket.setNoDelay?.(true);
      socket.once(ready, () => {
        clearTimeout(timer);
        this.socket = socket;
        resolve(socket);
      });
      socket.on('error', (error: Error) => {
        clearTimeout(timer);
        this.failure = error;
        reject(error);
      });
      // The receiver closed its end (it stopped): the next batch connects again.
      socket.on('end', () => socket.destroy());
      socket.on('close', () => {
        if (this.socket === socket) this.socket = undefined;
      });
      socket.on('data', () => undefined); // a receiver has nothing to say; drained so it never blocks
    });
  }

  private closeUdp(): void {
    this.udp?.close();
    this.udp = undefined;
  }

  async close(): Promise<void> {
    this.socket?.end();
    this.socket?.destroy();
    this.socket = undefined;
    try {
      this.closeUdp();
    } catch {
      // already closed
    }
  }
}
