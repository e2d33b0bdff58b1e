// Where the managed policy lives on each OS, and how a macOS configuration profile's keys are read. A
// variable or option that names another place (COUNTERSIGN_MANAGED_POLICY, BrokerOptions.managedPolicyPath)
// is held to the same ownership rule (managed-ownership.ts), and never hides a policy deployed at the OS
// path: an agent that edits a shell profile can neither move the policy away nor point it at its own file.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { checkOwnership, checkWindowsOwnership, type Ownership } from './managed-ownership.js';

export type ManagedFrom = 'os' | 'environment' | 'option';

export const LINUX_MANAGED = '/etc/countersign/managed-policy.json';
export const MAC_MANAGED = '/Library/Application Support/Countersign/managed-policy.json';
/** The device-level managed preferences a configuration profile (Jamf, Intune, …) installs. */
export const MAC_PROFILE = '/Library/Managed Preferences/com.countersign.policy.plist';

export function osManagedPath(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string {
  if (platform === 'darwin') return MAC_MANAGED;
  if (platform === 'win32') return path.win32.join(env.ProgramData || 'C:\\ProgramData', 'Countersign', 'managed-policy.json');
  return LINUX_MANAGED;
}

export interface ManagedLocation {
  /** The file read (absent: only a profile, or nothing). */
  path: string;
  from: ManagedFrom;
  /** The override that was not followed because a policy is deployed at the OS path. */
  overrideIgnored?: string;
}

export interface LocateOptions {
  option?: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  exists?: (p: string) => boolean;
}

/** The file to read: the OS path when a file is there; else an override, when one is named. */
export function locateManaged(o: LocateOptions): ManagedLocation {
  const exists = o.exists ?? ((p: string) => lexists(p));
  const os = osManagedPath(o.platform, o.env);
  const override = o.option
    ? { path: o.option, from: 'option' as const }
    : o.env.COUNTERSIGN_MANAGED_POLICY
      ? { path: o.env.COUNTERSIGN_MANAGED_POLICY, from: 'environment' as const }
      : undefined;
  if (!override) return { path: os, from: 'os' };
  if (exists(os)) return { path: os, from: 'os', overrideIgnored: override.path };
  return override;
}

/** Whether anything (a dangling symlink included) is at `p`. */
export function lexists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The ownership rule for this OS. */
export function ownershipFor(file: string, platform: NodeJS.Platform): Ownership {
  if (platform === 'win32') return checkWindowsOwnership(file, (p) => execFileSync('icacls', [p], { encoding: 'utf8', windowsHide: true }));
  return checkOwnership(file);
}

export type Runner = (file: string, args: string[]) => string;
const realRunner: Runner = (file, args) => execFileSync(file, args, { encoding: 'utf8', timeout: 10_000 });

/**
 * The keys a macOS configuration profile sets (the managed preferences domain), as JSON: `plutil` turns
 * the plist into JSON. The profile's own bookkeeping keys (Payload…) are dropped. Throws when the plist
 * exists but cannot be read: the caller fails closed.
 */
export function readProfileKeys(plist: string, run: Runner = realRunner): Record<string, unknown> {
  const parsed: unknown = JSON.parse(run('/usr/bin/plutil', ['-convert', 'json', '-o', '-', plist]));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${plist} does not hold a dictionary`);
  return Object.fromEntries(Object.entries(parsed).filter(([k]) => !k.startsWith('Payload')));
}

/** The managed source's inputs on this machine: the OS path (or an override), its ownership rule, the profile. */
export function managedInputs(option: string | undefined, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform) {
  return {
    locate: () => locateManaged({ option, env, platform }),
    ownership: (p: string) => ownershipFor(p, platform),
    ...(platform === 'darwin' ? { profile: { path: MAC_PROFILE } } : {}),
  };
}
