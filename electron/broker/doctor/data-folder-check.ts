// The data folder: can Countersign write it (a read-only disk, another user's folder, an immutable
// flag), is there room, and is it safe (store hygiene: no links, not writable by others, ours).
import { accessSync, constants, existsSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorFinding } from '../../../shared/doctor.js';
import { explainDiskError } from '../explain/disk-error.js';
import { STORE_FILES } from '../store/grant-seal.js';
import { checkTargets, type HygieneTarget } from '../store/store-hygiene.js';

const LOW_BYTES = 50 * 1024 * 1024;
const FULL_BYTES = 1024 * 1024;

export function dataFolderFindings(dataDir: string, keyFile?: string): DoctorFinding[] {
  const area = 'data-folder' as const;
  const out: DoctorFinding[] = [];
  if (!existsSync(dataDir)) {
    return [
      {
        area,
        code: 'data-folder.missing',
        level: 'note',
        summary: `The data folder ${dataDir} does not exist yet: Countersign makes it on its first start.`,
        subject: { path: dataDir },
      },
    ];
  }
  try {
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const explained = explainDiskError({ code: e.code, path: dataDir }, dataDir);
    out.push({
      area,
      code: 'data-folder.unwritable',
      level: 'problem',
      summary: explained?.why ?? `Countersign cannot write ${dataDir} (${e.code}).`,
      detail: 'No broker can start here, and no change can be saved.',
      fix: explained?.fix ?? 'use a data folder elsewhere: --data-dir <DIR>',
      subject: { path: dataDir },
    });
  }
  try {
    const s = statfsSync(dataDir);
    const free = s.bavail * s.bsize;
    if (free < LOW_BYTES) {
      out.push({
        area,
        code: free < FULL_BYTES ? 'data-folder.full' : 'data-folder.low-space',
        level: free < FULL_BYTES ? 'problem' : 'warning',
        summary: `The disk holding ${dataDir} has ${(free / 1024 / 1024).toFixed(1)} MB free: ${free < FULL_BYTES ? 'writes fail (the audit log, settings, the lock)' : 'the audit log will soon have no room'}.`,
        fix: `free some space on that disk (df -h ${dataDir}), or use a data folder elsewhere: --data-dir <DIR>`,
        subject: { path: dataDir },
      });
    }
  } catch {
    // statfs is not everywhere: nothing to say
  }
  const targets: HygieneTarget[] = [
    { path: dataDir, kind: 'dir' },
    ...STORE_FILES.map((f) => ({ path: join(dataDir, f), kind: 'file' as const })),
    ...(keyFile
      ? [
          { path: join(keyFile, '..'), kind: 'dir' as const },
          { path: keyFile, kind: 'file' as const },
        ]
      : []),
  ];
  for (const p of checkTargets(targets)) {
    out.push({
      area: 'store',
      code: 'store.unsafe',
      level: 'problem',
      summary: `${p.path} ${p.problem}.`,
      detail: 'Until this is fixed Countersign is in safe mode: no server is trusted, no rule allows a call, no server starts from this state.',
      fix: p.fix,
      subject: { path: p.path },
    });
  }
  if (!out.length)
    out.push({
      area,
      code: 'data-folder.ok',
      level: 'ok',
      summary: `The data folder ${dataDir} is writable, has room, and only you can change it.`,
      subject: { path: dataDir },
    });
  return out;
}
