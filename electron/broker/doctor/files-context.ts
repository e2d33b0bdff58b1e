// What `doctor` can still read when no core opens (the data folder cannot be written, another user
// holds it): the files as they are, read only, never changed.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServerConfig } from '../../../shared/api.js';
import type { ClientScanOptions } from '../../../shared/clients.js';
import { countersignCommand } from '../core/cli-command.js';
import { ClientConfigs } from '../clients/client-configs.js';
import { detectSandbox } from '../upstream/sandbox/detect.js';
import { defaultKeyDir, keyringMayAnswer, vaultId } from '../store/key-vault.js';
import { TeamPolicySource } from '../policy/team-policy.js';
import { ManagedPolicySource } from '../policy/managed-source.js';
import { managedInputs } from '../policy/managed-paths.js';
import type { DoctorContext } from './report.js';

/** settings.json as it is, without the store's checks (nothing is written or moved aside here). */
function settingsFile(dataDir: string): { servers: Record<string, ServerConfig>; policyPath?: string } {
  try {
    const raw = JSON.parse(readFileSync(path.join(dataDir, 'settings.json'), 'utf8')) as { servers?: unknown; settings?: { policyPath?: unknown } };
    const servers = raw.servers && typeof raw.servers === 'object' ? (raw.servers as Record<string, ServerConfig>) : {};
    const policyPath = typeof raw.settings?.policyPath === 'string' ? raw.settings.policyPath : undefined;
    return { servers, ...(policyPath ? { policyPath } : {}) };
  } catch {
    return { servers: {} };
  }
}

const readOnly = (): never => {
  throw new Error('doctor only reads');
};

export function filesContext(dataDir: string, env: NodeJS.ProcessEnv, reach: DoctorContext['reach'], opts?: ClientScanOptions): DoctorContext {
  const file = settingsFile(dataDir);
  const clients = new ClientConfigs({
    dataDir,
    where: () => ({ home: os.homedir(), platform: process.platform, env }),
    defaultProject: () => opts?.project,
    servers: () => file.servers,
    addServer: readOnly,
    removeServer: readOnly,
    audit: () => undefined,
    changed: () => undefined,
    command: () => countersignCommand(),
    warn: () => undefined,
  });
  const policyPath = env.COUNTERSIGN_POLICY || file.policyPath;
  const keyFile = env.COUNTERSIGN_KEY_DIR || !keyringMayAnswer(env) ? path.join(defaultKeyDir(env), `${vaultId(dataDir)}.key.json`) : undefined;
  return {
    dataDir,
    env,
    platform: process.platform,
    sandbox: () => detectSandbox(),
    clients: () => clients.listClients(opts),
    limited: async () =>
      Object.entries(file.servers).flatMap(([name, c]) => {
        const p = c && 'command' in c ? c.limits : undefined;
        return p && (p.network === 'none' || p.filesystem !== 'host')
          ? [{ name, network: p.network === 'none', files: p.filesystem !== 'host', runsWithoutLimits: false }]
          : [];
      }),
    keyFile,
    policy: async () => ({
      state: new TeamPolicySource(
        () => policyPath,
        () => undefined,
      ).current(),
      ...(env.COUNTERSIGN_POLICY ? { from: 'environment' as const } : policyPath ? { unchecked: true } : {}),
      managed: new ManagedPolicySource({ ...managedInputs(undefined, env), warn: () => undefined }).current(),
    }),
    reach,
  };
}
