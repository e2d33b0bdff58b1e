// `countersign doctor`: one command that checks this setup and explains what it finds, each problem
// with its fix. The core computes the findings (electron/broker/doctor/): the running broker's, else
// the core opened for this command, else (no core opens here) the files as they are. `--json` for scripts.
import { existsSync } from 'node:fs';
import type { DoctorFinding, DoctorLevel, DoctorReport } from '../../shared/doctor.js';
import { worstLevel } from '../../shared/doctor.js';
import { escapeControl as e, terminalJson } from '../../shared/escape.js';
import { lastFlag, parseArgs } from './args.js';
import { projectOf } from './clients.js';
import { withCore } from './core-client.js';

const LABEL: Record<DoctorLevel, string> = { problem: 'PROBLEM', warning: 'WARNING', note: 'note', ok: 'ok' };

async function withoutCore(dataDir: string, project: string, err?: unknown): Promise<DoctorReport> {
  const [{ filesContext }, { doctorReport }, { lockHolder }, { explainCliError }, { folderClosedText }] = await Promise.all([
    import('../broker/doctor/files-context.js'),
    import('../broker/doctor/report.js'),
    import('../broker/doctor/broker-check.js'),
    import('./cli-errors.js'),
    import('../broker/explain/disk-error.js'),
  ]);
  const reach =
    err === undefined
      ? { kind: 'none' as const }
      : {
          kind: 'failed' as const,
          why: (await explainCliError(err, dataDir)) ?? (err instanceof Error ? err.message : String(err)),
          lock: lockHolder(dataDir),
          closed: folderClosedText(dataDir) !== undefined,
        };
  return doctorReport(filesContext(dataDir, process.env, reach, { project }));
}

function findingText(f: DoctorFinding): string {
  const lines = [`${LABEL[f.level].padEnd(7)}  ${f.area.padEnd(11)}  ${e(f.summary)}`];
  if (f.detail && f.level !== 'ok') lines.push(`${' '.repeat(22)}${e(f.detail)}`);
  if (f.fix && f.level !== 'ok') lines.push(`${' '.repeat(22)}fix: ${e(f.fix)}`);
  return lines.join('\n');
}

export function reportText(r: DoctorReport): string {
  const count = (level: DoctorLevel) => r.findings.filter((f) => f.level === level).length;
  const [problems, warnings] = [count('problem'), count('warning')];
  const head = `Countersign ${e(r.countersign)} doctor, data folder ${e(r.dataDir)}`;
  const tail =
    problems || warnings ? `${problems} problem${problems === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}.` : 'No problems found.';
  return [head, '', ...r.findings.map(findingText), '', tail].join('\n') + '\n';
}

export async function runDoctor(argv: string[], dataDir: string): Promise<number> {
  const args = parseArgs(argv, { values: ['project'], booleans: ['json'] });
  const project = projectOf(lastFlag(args, 'project'));
  let report: DoctorReport;
  if (!existsSync(dataDir)) {
    // Nothing to open, and doctor makes nothing: what the files (none yet) and this machine say.
    report = await withoutCore(dataDir, project);
  } else {
    try {
      report = await withCore(dataDir, (api) => api.runDoctor({ project }));
    } catch (err) {
      report = await withoutCore(dataDir, project, err);
    }
  }
  process.stdout.write(args.bools.has('json') ? terminalJson(report, 2) + '\n' : reportText(report));
  return worstLevel(report.findings) === 'problem' ? 1 : 0;
}
