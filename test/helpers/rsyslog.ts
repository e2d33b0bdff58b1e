// A real rsyslogd (Debian's rsyslog) as a child, beside any system one: its own configuration, work
// folder and pid file, no system inputs (no imuxsock, no imklog), listening on 127.0.0.1 only: TCP
// (octet counting), UDP, TLS when asked (gtls), and a unix stream socket (imptcp). Every message it
// takes is written by omfile as one JSON line of the fields rsyslog itself parsed from RFC 5424.
// On Linux a missing rsyslogd fails the tests (CI installs it: .ci/run); elsewhere they are skipped.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from './patience.js';

export const RSYSLOGD = ['/usr/sbin/rsyslogd', '/sbin/rsyslogd'].find(existsSync) ?? 'rsyslogd';

/** What rsyslog parsed from one message (its own properties, not ours). */
export interface RsyslogRecord {
  pri: string;
  version: string;
  timestamp: string;
  hostname: string;
  appname: string;
  procid: string;
  msgid: string;
  sd: string;
  msg: string;
  input: string;
}

export interface Rsyslog {
  dir: string;
  tcpPort: number;
  udpPort: number;
  tlsPort?: number;
  socketPath: string;
  records(): RsyslogRecord[];
  stop(): Promise<void>;
  /** Starts again on the same ports. */
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

/** Whether rsyslogd is here and runs (its version); throws with the reason otherwise. */
export function requireRsyslogd(): string {
  const r = spawnSync(RSYSLOGD, ['-v'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`rsyslogd cannot run here (${r.error?.message ?? r.stderr}); install Debian's rsyslog (.ci/run does)`);
  return r.stdout.split('\n')[0] ?? '';
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    s.once('error', reject);
    s.bind(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function config(dir: string, ports: { tcp: number; udp: number; tls?: number }, tls?: { ca: string; cert: string; key: string }): string {
  return `global(workDirectory="${dir}/work" maxMessageSize="256k"${
    tls ? ` defaultNetstreamDriverCAFile="${tls.ca}" defaultNetstreamDriverCertFile="${tls.cert}" defaultNetstreamDriverKeyFile="${tls.key}"` : ''
  })
module(load="imtcp"${tls ? ' streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon"' : ''})
module(load="imudp")
module(load="imptcp")
input(type="imtcp" port="${ports.tcp}" address="127.0.0.1" listenPortFileName="${dir}/tcp-port"${tls ? ' streamDriver.mode="0"' : ''})
${tls ? `input(type="imtcp" port="${ports.tls ?? 0}" address="127.0.0.1" listenPortFileName="${dir}/tls-port" streamDriver.mode="1" streamDriver.authMode="anon")` : ''}
input(type="imudp" port="${ports.udp}" address="127.0.0.1")
input(type="imptcp" path="${dir}/syslog.sock" unlink="on")
template(name="fields" type="list" option.jsonf="on") {
  property(outname="pri" name="pri" format="jsonf")
  property(outname="version" name="protocol-version" format="jsonf")
  property(outname="timestamp" name="timereported" dateFormat="rfc3339" format="jsonf")
  property(outname="hostname" name="hostname" format="jsonf")
  property(outname="appname" name="app-name" format="jsonf")
  property(outname="procid" name="procid" format="jsonf")
  property(outname="msgid" name="msgid" format="jsonf")
  property(outname="sd" name="structured-data" format="jsonf")
  property(outname="msg" name="msg" format="jsonf")
  property(outname="input" name="inputname" format="jsonf")
}
action(type="omfile" file="${dir}/out.jsonl" template="fields")
`;
}

export async function startRsyslog(opts: { tls?: { ca: string; cert: string; key: string } } = {}): Promise<Rsyslog> {
  requireRsyslogd();
  const dir = mkdtempSync(join(tmpdir(), 'cs-rsyslog-'));
  spawnSync('mkdir', ['-p', join(dir, 'work')]);
  const ports = { tcp: 0, udp: await freeUdpPort(), tls: opts.tls ? 0 : undefined };
  let child: ChildProcess | undefined;
  let stderr = '';
  const launch = async () => {
    rmSync(join(dir, 'tcp-port'), { force: true });
    rmSync(join(dir, 'tls-port'), { force: true });
    const conf = join(dir, 'rsyslog.conf');
    writeFileSync(conf, config(dir, ports, opts.tls));
    // -n: stay in the foreground (a child we can stop); -i: its own pid file, not the system one's.
    child = spawn(RSYSLOGD, ['-n', '-f', conf, '-i', join(dir, 'rsyslogd.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const started = child;
    // A port it chose is written to its port file; a port given again (restart) is tried.
    const listening = async (port: number, file: string) => (port ? accepts(port) : existsSync(join(dir, file)));
    await pollUntil(
      async () =>
        started.exitCode === null &&
        existsSync(join(dir, 'syslog.sock')) &&
        (await listening(ports.tcp, 'tcp-port')) &&
        (!opts.tls || (await listening(ports.tls ?? 0, 'tls-port'))),
      (ok) => ok || started.exitCode !== null,
      'rsyslogd to listen',
    );
    if (started.exitCode !== null) throw new Error(`rsyslogd exited ${started.exitCode}: ${stderr}`);
    ports.tcp ||= Number(readFileSync(join(dir, 'tcp-port'), 'utf8').trim());
    if (opts.tls) ports.tls ||= Number(readFileSync(join(dir, 'tls-port'), 'utf8').trim());
    // UDP says nothing when it is ready: a probe datagram is sent on each look (pollUntil paces them) until
    // rsyslog has written one; records() leaves probes out.
    const probe = dgram.createSocket('udp4');
    try {
      await pollUntil(
        async () => {
          await new Promise<void>((r) => probe.send(`<14>1 - - probe - - - ready`, ports.udp, '127.0.0.1', () => r()));
          return existsSync(join(dir, 'out.jsonl')) && readFileSync(join(dir, 'out.jsonl'), 'utf8').includes('"appname":"probe"');
        },
        (ok) => ok,
        'rsyslogd to take UDP',
      );
    } finally {
      probe.close();
    }
  };
  await launch();
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  };
  return {
    dir,
    get tcpPort() {
      return ports.tcp;
    },
    get udpPort() {
      return ports.udp;
    },
    get tlsPort() {
      return ports.tls;
    },
    socketPath: join(dir, 'syslog.sock'),
    records: () => {
      const file = join(dir, 'out.jsonl');
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as RsyslogRecord)
        .filter((r) => r.appname === 'countersign');
    },
    stop,
    restart: launch,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** SD-PARAMs of one SD-ELEMENT as rsyslog passed it on, unescaped (RFC 5424 §6.3.3); repeated names collect. */
export function sdParams(sd: string): { id: string; params: Record<string, string[]> } {
  const m = /^\[(\S+)/.exec(sd);
  if (!m) throw new Error(`no SD-ELEMENT in ${sd}`);
  const params: Record<string, string[]> = {};
  const re = /\s([^=\s\]"]+)="((?:\\.|[^"\\])*)"/g;
  for (let p = re.exec(sd); p; p = re.exec(sd)) {
    const value = p[2]!.replace(/\\(["\\\]])/g, '$1');
    (params[p[1]!] ??= []).push(value);
  }
  return { id: m[1]!, params };
}
