// Countersign's servers: a command that is not on PATH, a slow start (and what usually causes it), a
// last start that failed, a command that waits for approval.
import type { ServerView } from '../../../shared/api.js';
import type { DoctorFinding } from '../../../shared/doctor.js';

export function serverFindings(servers: ServerView[]): DoctorFinding[] {
  const area = 'servers' as const;
  const out: DoctorFinding[] = [];
  for (const s of servers) {
    const subject = { server: s.name };
    if (s.commandNotFound) {
      out.push({
        area,
        code: 'server.command-not-found',
        level: 'problem',
        summary: `'${s.name}' will not start: ${s.commandNotFound}`,
        fix: `countersign servers remove ${s.name}, then add it again with the command's absolute path`,
        subject,
      });
    }
    if (s.slowStart) {
      out.push({
        area,
        code: 'server.slow-start',
        level: 'warning',
        summary: `'${s.name}' took ${Math.round(s.slowStart.ms / 1000)} s to answer at its last start (${s.slowStart.at}); clients often give up after 60 s.`,
        detail: `What usually causes it: ${s.slowStart.causes.join('; ')}.`,
        fix: s.slowStart.causes[0]!,
        subject,
      });
    }
    if (s.lastError && !s.limits?.unenforced)
      out.push({
        area,
        code: 'server.last-start-failed',
        level: 'warning',
        summary: `'${s.name}' failed at its last start: ${s.lastError}`,
        fix: `countersign servers show ${s.name} shows what runs; start it by hand to see its own error`,
        subject,
      });
    if (s.quarantine?.length)
      out.push({
        area,
        code: 'server.quarantined',
        level: 'problem',
        summary: `'${s.name}' is quarantined: ${s.quarantine.join('; ')}.`,
        fix: `countersign servers review ${s.name}`,
        subject,
      });
    if (!s.launch.approved && !s.blockedBy)
      out.push({
        area,
        code: 'server.awaiting-approval',
        level: 'note',
        summary: `'${s.name}' does not start until you approve its command line.`,
        fix: `countersign servers approve ${s.name} (or in the UI)`,
        subject,
      });
  }
  if (!servers.length)
    out.push({
      area,
      code: 'server.none',
      level: 'note',
      summary: 'Countersign has no servers yet.',
      fix: "countersign wrap <client> adds a client's servers; countersign servers add adds one",
    });
  else if (!out.some((f) => f.level === 'problem' || f.level === 'warning'))
    out.push({
      area,
      code: 'server.ok',
      level: 'ok',
      summary: `${servers.length} server${servers.length === 1 ? '' : 's'}: every command is found, none started slowly or failed.`,
    });
  return out;
}
