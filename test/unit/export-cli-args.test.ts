// `countersign export set`'s flags: every syslog spelling, and bad input refused before anything is asked.
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../electron/cli/args.js';
import { destinationFrom, exportChangeHash } from '../../electron/cli/export.js';

const dest = (...argv: string[]) =>
  destinationFrom(parseArgs(argv, { values: ['hash', 'otlp', 'protocol', 'header', 'syslog', 'ca', 'facility'], booleans: ['json', 'yes'] }));

describe('export set flags', () => {
  it('reads each syslog transport', () => {
    expect(dest('--syslog', 'tcp://siem.example:514').syslog).toMatchObject({ transport: 'tcp', host: 'siem.example', port: 514, facility: 13 });
    expect(dest('--syslog', 'TLS://siem:6514', '--ca', '/etc/ca.pem', '--facility', '4').syslog).toMatchObject({
      transport: 'tls',
      host: 'siem',
      port: 6514,
      ca: '/etc/ca.pem',
      facility: 4,
    });
    expect(dest('--syslog', 'udp://[::1]:514').syslog).toMatchObject({ transport: 'udp', host: '::1', port: 514 });
    expect(dest('--syslog', 'unix:/run/syslog.sock').syslog).toMatchObject({ transport: 'unix', path: '/run/syslog.sock' });
    expect(dest('--syslog', 'unix:///run/syslog.sock').syslog).toMatchObject({ transport: 'unix', path: '/run/syslog.sock' });
  });

  it('reads OTLP with its protocol and headers, alone or with syslog', () => {
    const d = dest('--otlp', 'https://otel:4318/v1/logs', '--protocol', 'http/json', '--header', 'a=b=c', '--syslog', 'tcp://s:1');
    expect(d.otlp).toEqual({ endpoint: 'https://otel:4318/v1/logs', protocol: 'http/json', headers: { a: 'b=c' } });
    expect(d.syslog?.transport).toBe('tcp');
  });

  it('refuses bad input with a clear error', () => {
    expect(() => dest()).toThrow(/needs --otlp URL, --syslog URL or both/);
    expect(() => dest('--syslog', 'tcp://siem')).toThrow(/--syslog takes tcp:\/\/host:port/);
    expect(() => dest('--syslog', 'http://siem:514')).toThrow(/--syslog takes/);
    expect(() => dest('--syslog', 'tcp://siem:70000')).toThrow(/syslog\.port/);
    expect(() => dest('--syslog', 'tcp://siem:514', '--ca', '/ca.pem')).toThrow(/--ca goes with a tls:\/\//);
    expect(() => dest('--otlp', 'ftp://x/v1/logs')).toThrow(/otlp\.endpoint/);
    expect(() => dest('--otlp', 'https://x/v1/logs', '--protocol', 'grpc')).toThrow(/otlp\.protocol/);
    expect(() => dest('--syslog', 'tcp://s:1', '--header', 'a=b')).toThrow(/go with --otlp/);
    expect(() => dest('--otlp', 'https://x/v1/logs', '--header', 'novalue')).toThrow(/KEY=VALUE/);
  });

  it('binds the hash to what changes, not to header values (which are never printed)', () => {
    const a = dest('--otlp', 'https://x/v1/logs', '--header', 'authorization=one');
    const b = dest('--otlp', 'https://x/v1/logs', '--header', 'authorization=two');
    const c = dest('--otlp', 'https://y/v1/logs', '--header', 'authorization=one');
    expect(exportChangeHash(undefined, a)).toBe(exportChangeHash(undefined, b));
    expect(exportChangeHash(undefined, a)).not.toBe(exportChangeHash(undefined, c));
    expect(exportChangeHash(a, null)).not.toBe(exportChangeHash(undefined, a));
  });
});
