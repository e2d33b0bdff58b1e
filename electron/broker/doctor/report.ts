// `countersign doctor`: every check, as plain findings. The core computes them (here, from what the
// context gives: a running broker, the core opened in-process, or only the files when no core can open);
// the CLI prints them and the Clients view shows them.
import type { ClientView } from '../../../shared/clients.js';
import type { ServerView } from '../../../shared/api.js';
import { sortFindings, type DoctorFinding, type DoctorReport } from '../../../shared/doctor.js';
import type { SandboxSupport } from '../../../shared/limits.js';
import { VERSION } from '../core/version.js';
import { brokerFindings, brokerView, type LockHolder } from './broker-check.js';
import { clientFindings, wrappedHere } from './client-checks.js';
import { dataFolderFindings } from './data-folder-check.js';
import { keyringFindings } from './keyring-check.js';
import { policyFindings, type PolicyInUse } from './policy-check.js';
import { portFindings } from './ports-check.js';
import { sandboxFindings, type LimitedServer } from './sandbox-check.js';
import { serverFindings } from './server-checks.js';

export interface DoctorContext {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  sandbox(): Promise<SandboxSupport>;
  clients(): Promise<ClientView[]>;
  /** Countersign's servers as the core sees them; absent when no core could open. */
  servers?(): Promise<ServerView[]>;
  /** Servers with limits (from the core's view, or the settings file). */
  limited(): Promise<LimitedServer[]>;
  /** Where the seal key is, in the vault's words (a core opened it); absent: predicted. */
  keyWhere?: string;
  keyFile?: string;
  policy(): Promise<PolicyInUse>;
  /** Hand-made grants the seal does not cover (a core is needed to tell). */
  unsealed?(): Promise<number>;
  /**
   * The broker for this data folder: this core when it is one (it has endpoints), none (the CLI opened
   * the core itself), or what stopped the CLI from using one.
   */
  reach:
    | { kind: 'broker'; version: string; httpUrl?: string; pid?: number }
    | { kind: 'none' }
    | { kind: 'failed'; why: string; lock?: LockHolder; closed?: boolean };
}

/** Runs one check; a check that breaks is a finding, never the end of the report. */
async function check(area: DoctorFinding['area'], fn: () => DoctorFinding[] | Promise<DoctorFinding[]>): Promise<DoctorFinding[]> {
  try {
    return await fn();
  } catch (err) {
    return [
      {
        area,
        code: `${area}.check-failed`,
        level: 'warning',
        summary: `Countersign could not check this: ${(err as Error).message.split('\n')[0]}`,
        fix: 'run countersign doctor again; if it keeps failing, report it with this line',
      },
    ];
  }
}

export async function doctorFindings(ctx: DoctorContext): Promise<DoctorFinding[]> {
  const clients = ctx.clients();
  const { reach } = ctx;
  const parts = await Promise.all([
    check('broker', async () =>
      brokerFindings(ctx.dataDir, reach.kind === 'none' ? { kind: 'none', wrappedHere: wrappedHere(await clients.catch(() => [])) } : reach),
    ),
    check('data-folder', () => dataFolderFindings(ctx.dataDir, ctx.keyFile)),
    check('clients', async () => clientFindings(await clients)),
    check('servers', async () => (ctx.servers ? serverFindings(await ctx.servers()) : [])),
    check('sandbox', async () => sandboxFindings(await ctx.sandbox(), await ctx.limited())),
    check('keyring', () => keyringFindings(ctx.dataDir, ctx.env, ctx.keyWhere, ctx.platform)),
    check('store', async () => {
      const n = ctx.unsealed ? await ctx.unsealed() : 0;
      return n
        ? [
            {
              area: 'store' as const,
              code: 'store.unsealed',
              level: 'warning' as const,
              summary: `${n} trust, launch approval${n === 1 ? '' : 's'} or rule${n === 1 ? ' is' : 's are'} in the files but were not given in Countersign (hand edits): they have no effect.`,
              fix: 'look at them in Servers (Written outside Countersign) and confirm or discard each',
            },
          ]
        : [];
    }),
    check('policy', async () => policyFindings(await ctx.policy())),
    check('ports', () => portFindings(reach.kind === 'broker' ? reach.httpUrl : undefined, reach.kind === 'broker' ? reach.pid : undefined)),
  ]);
  return parts.flat();
}

export async function doctorReport(ctx: DoctorContext): Promise<DoctorReport> {
  const findings = await doctorFindings(ctx);
  const reach = ctx.reach.kind === 'none' ? { kind: 'none' as const, wrappedHere: 0 } : ctx.reach;
  return {
    version: 1,
    countersign: VERSION,
    dataDir: ctx.dataDir,
    checkedAt: new Date().toISOString(),
    broker: brokerView(ctx.dataDir, reach),
    findings: sortFindings(findings),
  };
}
