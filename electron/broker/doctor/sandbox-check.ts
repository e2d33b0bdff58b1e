// The sandbox: what enforces servers' limits here, or why nothing does (the probe's own reason and fix,
// sandbox/detect.ts and probe-fix.ts), and which servers that stops.
import type { DoctorFinding } from '../../../shared/doctor.js';
import type { SandboxSupport } from '../../../shared/limits.js';

export interface LimitedServer {
  name: string;
  network: boolean;
  files: boolean;
  runsWithoutLimits: boolean;
}

export function sandboxFindings(support: SandboxSupport, limited: LimitedServer[]): DoctorFinding[] {
  const area = 'sandbox' as const;
  const names = (list: LimitedServer[]) => list.map((s) => `'${s.name}'`).join(', ');
  if (support.kind === 'none') {
    const stopped = limited.filter((s) => !s.runsWithoutLimits);
    return [
      {
        area,
        code: 'sandbox.none',
        level: stopped.length ? 'problem' : 'warning',
        summary: `No sandbox works here: ${support.reason}.`,
        detail: stopped.length
          ? `Servers with limits do not start here: ${names(stopped)}.`
          : 'Servers with limits (no network, only some folders) would not start here; servers without limits run as they are.',
        fix:
          support.fix ?? 'none on this system: run a server without its limits only if you trust it (countersign servers limits <name> --run-without-limits)',
      },
    ];
  }
  if (support.kind === 'sandbox-exec') {
    return [
      {
        area,
        code: 'sandbox.ok',
        level: 'ok',
        summary: `sandbox-exec (${support.path}) enforces servers' file and network limits.`,
        detail: "macOS has no PID namespace: a server's process tree is ended by a sweep, best effort.",
      },
    ];
  }
  const out: DoctorFinding[] = [];
  if (!support.network) {
    const stopped = limited.filter((s) => s.network && !s.runsWithoutLimits);
    out.push({
      area,
      code: 'sandbox.no-network-namespace',
      level: stopped.length ? 'problem' : 'warning',
      summary: `bubblewrap runs, but cannot cut the network here: ${support.networkReason ?? 'no network namespace'}.`,
      detail: stopped.length ? `Servers limited to no network do not start: ${names(stopped)}.` : 'A server limited to no network would not start.',
      fix: support.fix ?? 'allow network namespaces for unprivileged users, then restart Countersign',
    });
  }
  if (support.nestedUserns !== 'blocked') {
    out.push({
      area,
      code: 'sandbox.nested-userns',
      level: 'warning',
      summary: `bubblewrap (${support.path}) runs, but ${support.nestedUserns.open}.`,
      fix: 'upgrade bubblewrap to 0.8 or later',
    });
  }
  if (!out.length)
    out.push({
      area,
      code: 'sandbox.ok',
      level: 'ok',
      summary: `bubblewrap (${support.path}) enforces servers' limits: files, network, and each server's process tree (its own PID namespace).`,
    });
  return out;
}
