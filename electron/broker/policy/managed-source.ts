// The managed policy the organization deployed (shared/managed-policy-schema.ts). It outranks the user's
// policy file and settings. Read on every call through a throttled stat, as the team policy is. An
// unreadable or invalid file fails closed: every server is blocked until it is fixed.
import fs from 'node:fs';
import { z } from 'zod';
import { managedPolicySchema, type ManagedPolicy } from '../../../shared/managed-policy-schema.js';
import { FileVersion } from '../store/file-version.js';

export type ManagedState =
  | { kind: 'none' }
  | { kind: 'loaded'; path: string; policy: ManagedPolicy }
  /** Fail closed: a managed policy that exists but cannot be read or is invalid blocks every server. */
  | { kind: 'broken'; path: string; error: string };

export function parseManagedPolicy(text: string): ManagedPolicy {
  return managedPolicySchema.parse(JSON.parse(text));
}

export class ManagedPolicySource {
  private cache?: { key: string; state: ManagedState };
  private version?: { path: string; file: FileVersion };

  constructor(
    private readonly pathOf: () => string | undefined,
    private readonly warn: (text: string) => void,
  ) {}

  current(): ManagedState {
    const path = this.pathOf();
    if (!path) return { kind: 'none' };
    if (this.version?.path !== path) this.version = { path, file: new FileVersion(path) };
    const stamp = this.version.file.current();
    if (stamp === undefined) return { kind: 'none' };
    const key = `${path}:${stamp}`;
    if (this.cache?.key === key) return this.cache.state;
    let state: ManagedState;
    try {
      state = { kind: 'loaded', path, policy: parseManagedPolicy(fs.readFileSync(path, 'utf8')) };
    } catch (err) {
      const error = err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : (err as Error).message;
      state = { kind: 'broken', path, error };
      this.warn(`The managed policy ${path} could not be read (${error}). Until it is fixed, every server is blocked.`);
    }
    this.cache = { key, state };
    return state;
  }
}
