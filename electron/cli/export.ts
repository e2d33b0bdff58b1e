// `countersign export …`: where the audit log is exported and how far each destination has taken it, and
// the person's own destination. Setting or removing it changes where the whole log goes, so it is consent,
// bound to the change hash printed (as `policy set`). Header values are never printed. Every change goes
// through the core, which refuses it while the managed policy decides the export.
import { createHash } from 'node:crypto';
import type { AuditExportStatus } from '../../shared/api.js';
import { auditExportSchema, exportTargets, hideHeaders, type AuditExportDestination, type AuditExportInput } from '../../shared/audit-export-schema.js';
import { canonicalJson } from '../../shared/canonical-json.js';
import { escapeControl as e, terminalJson } from '../../shared/escape.js';
import { intFlag, keyValues, lastFlag, parseArgs, UsageError, type ParsedArgs } from './args.js';
import { consent } from './confirm.js';
import { withCore, type CoreApi } from './core-client.js';
import { EXPORT_USAGE } from './usage.js';

const say = (text: string): void => void process.stdout.write(text);

/** What a change is bound to: the destinations before and after as printed (header values hidden, names kept). */
export function exportChangeHash(from: AuditExportInput | undefined, to: AuditExportInput | null): string {
  return createHash('sha256')
    .update(canonicalJson({ from: from ? hideHeaders(from) : null, to: to ? hideHeaders(to) : null }))
    .digest('hex');
}

export async function runExport(argv: string[], dataDir: string): Promise<number> {
  // `export --json` has no verb: a leading flag belongs to `show`.
  const verb = argv[0]?.startsWith('-') ? undefined : argv[0];
  const rest = verb === undefined ? argv : argv.slice(1);
  const args = parseArgs(rest, {
    values: ['hash', 'otlp', 'protocol', 'header', 'syslog', 'ca', 'facility'],
    booleans: ['json', 'yes'],
  });
  if (verb === 'set' || verb === 'unset') {
    const to = verb === 'set' ? destinationFrom(args) : null;
    return withCore(dataDir, (api) => change(api, to, args));
  }
  if (verb !== undefined && verb !== 'show') throw new UsageError(`unknown export command '${verb}'\n${EXPORT_USAGE}`);
  return withCore(dataDir, (api) => show(api, args.bools.has('json')));
}

/** The destination the flags name, checked with the shared schema before anything is asked. */
export function destinationFrom(args: ParsedArgs): AuditExportDestination {
  const otlp = lastFlag(args, 'otlp');
  const syslog = lastFlag(args, 'syslog');
  if (otlp === undefined && syslog === undefined) throw new UsageError(`export set needs --otlp URL, --syslog URL or both\n${EXPORT_USAGE}`);
  if (otlp === undefined && (args.flags.has('protocol') || args.flags.has('header'))) throw new UsageError('--protocol and --header go with --otlp');
  if (syslog === undefined && (args.flags.has('ca') || args.flags.has('facility'))) throw new UsageError('--ca and --facility go with --syslog');
  const input: AuditExportInput = {
    ...(otlp !== undefined && {
      otlp: {
        endpoint: otlp,
        protocol: (lastFlag(args, 'protocol') ?? 'http/protobuf') as 'http/protobuf',
        ...(args.flags.has('header') && { headers: keyValues(args, 'header') }),
      },
    }),
    ...(syslog !== undefined && { syslog: syslogFrom(syslog, lastFlag(args, 'ca'), intFlag(args, 'facility', 0, 23)) }),
  };
  const parsed = auditExportSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'destination'}: ${i.message}`);
    throw new UsageError(`this destination is not valid: ${issues.join('; ')}`);
  }
  return parsed.data;
}

function syslogFrom(where: string, ca: string | undefined, facility: number | undefined): NonNullable<AuditExportInput['syslog']> {
  const extra = { ...(ca !== undefined && { ca }), ...(facility !== undefined && { facility }) };
  if (where.startsWith('unix:')) {
    if (ca !== undefined) throw new UsageError('--ca goes with a tls:// syslog destination');
    return { transport: 'unix', path: where.slice('unix:'.length).replace(/^\/\/(?=\/)/, ''), ...extra };
  }
  const m = /^(tcp|tls|udp):\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/i.exec(where);
  if (!m) throw new UsageError(`--syslog takes tcp://host:port, tls://host:port, udp://host:port or unix:/path, got '${e(where)}'`);
  const transport = m[1]!.toLowerCase() as 'tcp' | 'tls' | 'udp';
  if (ca !== undefined && transport !== 'tls') throw new UsageError('--ca goes with a tls:// syslog destination');
  return { transport, host: m[2]!.replace(/^\[|\]$/g, ''), port: Number(m[3]), ...extra };
}

async function change(api: CoreApi, to: AuditExportDestination | null, args: ParsedArgs): Promise<number> {
  const status = (await api.getStatus()).auditExport;
  if (status?.source === 'managed') {
    say(managedLine(status));
    throw new UsageError('nothing changed: your organization decides the audit export');
  }
  const from = (await api.getSettings()).auditExport;
  if (to === null && from === undefined) {
    say('No audit export destination was set in Countersign: nothing to remove.\n');
    return 0;
  }
  const hash = exportChangeHash(from, to);
  say(
    `Audit export now: ${
      from
        ? exportTargets(from)
            .map((t) => e(t))
            .join(', ')
        : 'none'
    }\n`,
  );
  say(
    `Then:             ${
      to
        ? exportTargets(to)
            .map((t) => e(t))
            .join(', ')
        : 'none'
    }\n`,
  );
  const headers = Object.keys(to?.otlp?.headers ?? {});
  if (headers.length) say(`  with the headers ${headers.map((t) => e(t)).join(', ')} (values not shown)\n`);
  say(`  change hash ${hash}\n`);
  say(
    to
      ? 'Every entry of the audit log (calls, arguments, decisions) will be sent there, from the start of the log.\n'
      : 'The audit log would no longer leave this machine.\n',
  );
  const ok = await consent(to ? 'Export the audit log there?' : 'Stop exporting the audit log?', {
    yes: args.bools.has('yes'),
    bound: [{ flag: 'hash', printed: hash, given: lastFlag(args, 'hash'), checkHere: true }],
  });
  if (!ok) {
    say('Nothing changed.\n');
    return 1;
  }
  await api.updateSettings({ auditExport: to });
  say(to ? 'Set.\n' : 'Removed.\n');
  return 0;
}

function managedLine(status: AuditExportStatus): string {
  return `Managed by your organization${status.required ? `: the audit export is required (${e(status.required.reason)})` : ''}.\n`;
}

async function show(api: CoreApi, json: boolean): Promise<number> {
  const status = (await api.getStatus()).auditExport;
  if (json) {
    say(terminalJson(status ?? null, 2) + '\n');
    return 0;
  }
  if (!status) {
    say('The audit log is not exported. Set a destination: countersign export set --otlp URL | --syslog URL\n');
    return 0;
  }
  say(status.source === 'managed' ? managedLine(status) : 'Set by you in Countersign.\n');
  for (const s of status.sinks) {
    say(`${s.kind === 'otlp' ? 'OTLP' : 'syslog'} ${e(s.target)}: ${s.state}\n`);
    say(`  exported up to #${s.exportedSeq}, backlog ${s.backlog}${s.backlogExceeded ? ' (past its bound: reported, nothing dropped)' : ''}\n`);
    if (s.lastError) say(`  last error: ${e(s.lastError)}${s.failures ? ` (${s.failures} failed in a row)` : ''}\n`);
  }
  return 0;
}
