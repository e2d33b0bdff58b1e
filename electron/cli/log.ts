// `countersign log`: reads, follows and verifies the audit log. What it prints masks credential-shaped
// argument values (shared/secrets.ts) unless asked for them raw: a log read in a terminal ends up in
// scrollback, screen shares and pasted bug reports. The file itself keeps the full arguments: it is the record.
import type { AuditEntry } from '../../shared/api.js';
import { escapeControl, terminalJson } from '../../shared/escape.js';
import { maskSecrets } from '../../shared/secrets.js';
import { AuditLog } from '../broker/audit/audit-log.js';
import { parseArgs } from './args.js';

function line(entry: AuditEntry, json: boolean, raw: boolean): string {
  const e = raw || entry.arguments === undefined ? entry : { ...entry, arguments: maskSecrets(entry.arguments) };
  if (json) return terminalJson(e);
  const args = escapeControl(JSON.stringify(e.arguments) ?? '');
  const detail = e.detail ? `  (${escapeControl(e.detail)})` : '';
  // A retried call: each sending and how it ended.
  const attempts = e.attempts ? `  [sent ${e.attempts.length} times: ${e.attempts.map((a) => `${a.status} after ${a.durationMs}ms`).join(', ')}]` : '';
  return `${e.time}  ${escapeControl(e.server)}/${escapeControl(e.tool)}  ${e.decision} by ${e.decidedBy}  ${e.status}  ${e.durationMs}ms${attempts}  ${args}${detail}`;
}

export async function runLog(argv: string[], dataDir: string): Promise<number> {
  const args = parseArgs(argv, { booleans: ['json', 'follow', 'verify', 'show-secrets'] });
  const { log, warnings } = AuditLog.open(dataDir);
  for (const w of warnings) process.stderr.write(`countersign: ${escapeControl(w)}\n`);
  if (args.bools.has('verify')) {
    const result = log.verify();
    if (result.ok) {
      process.stdout.write(`Audit log intact: ${result.entries} entries, hash chain verified.\n`);
      return 0;
    }
    process.stdout.write(`Audit log has been altered or damaged (${result.entries} entries read):\n`);
    for (const p of result.problems) process.stdout.write(`  ${escapeControl(p)}\n`);
    return 1;
  }
  const json = args.bools.has('json');
  const raw = args.bools.has('show-secrets');
  for (const e of log.read()) process.stdout.write(line(e, json, raw) + '\n');
  if (!args.bools.has('follow')) return 0;
  return new Promise((resolve) => {
    const stop = log.follow((e) => process.stdout.write(line(e, json, raw) + '\n'), { fromEnd: true });
    const end = (): void => {
      stop();
      resolve(0);
    };
    process.on('SIGINT', end);
    process.on('SIGTERM', end);
  });
}
