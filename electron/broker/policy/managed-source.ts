// The managed policy the organization deployed (shared/managed-policy-schema.ts). It outranks the user's
// policy file and settings. Read on every call through a throttled stat, as the team policy is. It counts
// only when its file passes the ownership rule (managed-ownership.ts); otherwise it is ignored, with the
// fix. An unreadable or invalid file fails closed: every server is blocked until it is fixed.
import fs from 'node:fs';
import { isAbsolute, win32 } from 'node:path';
import { z } from 'zod';
import type { ServerConfig } from '../../../shared/api.js';
import { managedPolicySchema, type ManagedPolicy } from '../../../shared/managed-policy-schema.js';
import { FileVersion } from '../store/file-version.js';
import { monotonicMs } from '../core/clock.js';

const RECHECK_OWNERSHIP_MS = 2_000;
import { denyMatch } from './managed-deny.js';
import { lexists, readProfileKeys, type ManagedFrom, type ManagedLocation, type Runner } from './managed-paths.js';
import type { Ownership } from './managed-ownership.js';
import { policyBlockReason, type TeamPolicy } from './team-policy.js';

type Where = { path: string; from: ManagedFrom };
export type ManagedState =
  | { kind: 'none' }
  | ({ kind: 'loaded'; policy: ManagedPolicy; profile?: string } & Where)
  /** Fail closed: a managed policy that exists but cannot be read or is invalid blocks every server. */
  | ({ kind: 'broken'; error: string } & Where)
  /** Not owned as the rule asks (root, no group/other/user write): it does not count at all. */
  | ({ kind: 'ignored'; why: string; fix: string } & Where);

export function parseManagedPolicy(text: string): ManagedPolicy {
  return managedPolicySchema.parse(JSON.parse(text));
}

export function issuesText(err: unknown): string {
  return err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ') : (err as Error).message;
}

export interface ManagedSourceOptions {
  locate(): ManagedLocation;
  ownership(path: string): Ownership;
  warn(text: string): void;
  /** macOS: the configuration profile's plist, read through `run` (tests give a fake). */
  profile?: { path: string; run?: Runner };
}

export const BY_ORGANIZATION = 'your organization’s managed policy';

export class ManagedPolicySource {
  private cache?: { key: string; state: ManagedState; at: number; owned?: string };
  private readonly versions = new Map<string, FileVersion>();
  private readonly dangling = new Map<string, { at: number; stamp: string | undefined }>();

  constructor(private readonly o: ManagedSourceOptions) {}

  private stamp(path: string): string | undefined {
    let v = this.versions.get(path);
    if (!v) this.versions.set(path, (v = new FileVersion(path)));
    const stamp = v.current();
    if (stamp !== undefined) return stamp;
    // Absent (or a dangling link): asked on every call, so the lstat is throttled as FileVersion's stat is.
    const now = monotonicMs();
    const seen = this.dangling.get(path);
    if (seen && now - seen.at < 50) return seen.stamp;
    const next = lexists(path) ? 'dangling' : undefined;
    this.dangling.set(path, { at: now, stamp: next });
    return next;
  }

  current(): ManagedState {
    const loc = this.o.locate();
    // A relative override names whatever sits in the folder Countersign started in: never followed.
    if (!isAbsolute(loc.path) && !win32.isAbsolute(loc.path)) {
      const own = this.o.ownership(loc.path);
      const state: ManagedState = {
        kind: 'ignored',
        path: loc.path,
        from: loc.from,
        why: own.ok ? 'the path is not absolute' : own.why,
        fix: own.ok ? 'name the managed policy by its absolute path' : own.fix,
      };
      if (this.cache?.key !== `relative:${loc.path}`) this.o.warn(`The managed policy ${loc.path} is ignored: ${state.why}. Fix: ${state.fix}`);
      this.cache = { key: `relative:${loc.path}`, state, at: monotonicMs() };
      return state;
    }
    const profile = this.o.profile;
    const fileStamp = this.stamp(loc.path);
    const profileStamp = profile ? this.stamp(profile.path) : undefined;
    if (fileStamp === undefined && profileStamp === undefined) return { kind: 'none' };
    const key = `${loc.from}:${loc.path}:${fileStamp}:${profileStamp}`;
    // The folders above can change without the file changing (an administrator runs the fix): their
    // ownership is looked at again every few seconds, not only when the file changes.
    const now = monotonicMs();
    if (this.cache?.key === key) {
      if (now - this.cache.at < RECHECK_OWNERSHIP_MS) return this.cache.state;
      // Only the ownership is looked at again (cheap lstats); the file is read again only when it changed.
      const owned = this.ownershipSignature(loc.path, fileStamp !== undefined, profileStamp !== undefined);
      if (owned === this.cache.owned) {
        this.cache.at = now;
        return this.cache.state;
      }
    }
    const owned = this.ownershipSignature(loc.path, fileStamp !== undefined, profileStamp !== undefined);
    const state = this.load(loc, fileStamp !== undefined, profileStamp !== undefined);
    this.cache = { key, state, at: now, owned };
    if (loc.overrideIgnored) this.o.warn(`A managed policy is deployed at ${loc.path}, so the override ${loc.overrideIgnored} is not followed.`);
    if (state.kind === 'broken')
      this.o.warn(`The managed policy ${state.path} could not be read (${state.error}). Until it is fixed, every server is blocked.`);
    if (state.kind === 'ignored') this.o.warn(`The managed policy ${state.path} is ignored: ${state.why}. Fix: ${state.fix}`);
    return state;
  }

  private ownershipSignature(path: string, hasFile: boolean, hasProfile: boolean): string {
    const sig = (p: string) => JSON.stringify(this.o.ownership(p));
    return `${hasFile ? sig(path) : ''}|${hasProfile && this.o.profile ? sig(this.o.profile.path) : ''}`;
  }

  private load(loc: ManagedLocation, hasFile: boolean, hasProfile: boolean): ManagedState {
    const where = { path: loc.path, from: loc.from };
    const parts: Record<string, unknown>[] = [];
    let ignored: ManagedState | undefined;
    if (hasFile) {
      const own = this.o.ownership(loc.path);
      if (!own.ok) ignored = { kind: 'ignored', ...where, why: own.why, fix: own.fix };
      else {
        const read = readJsonObject(loc.path);
        if ('error' in read) return { kind: 'broken', ...where, error: read.error };
        parts.push(read.value);
      }
    }
    if (hasProfile && this.o.profile) {
      const p = this.o.profile.path;
      const own = this.o.ownership(p);
      if (!own.ok) ignored ??= { kind: 'ignored', path: p, from: 'os', why: own.why, fix: own.fix };
      else {
        try {
          parts.push(readProfileKeys(p, this.o.profile.run));
        } catch (err) {
          return { kind: 'broken', path: p, from: 'os', error: (err as Error).message };
        }
      }
    }
    if (!parts.length) return ignored ?? { kind: 'none' };
    // The profile's keys replace the file's, key by key.
    const merged = Object.assign({}, ...parts) as unknown;
    const parsed = managedPolicySchema.safeParse(merged);
    if (!parsed.success) return { kind: 'broken', ...where, error: issuesText(parsed.error) };
    return { kind: 'loaded', ...where, policy: parsed.data, ...(hasProfile && this.o.profile ? { profile: this.o.profile.path } : {}) };
  }

  /** Where the managed policy is looked for now. */
  location(): ManagedLocation {
    return this.o.locate();
  }

  /** The policy, when one counts. */
  loaded(): ManagedPolicy | undefined {
    const s = this.current();
    return s.kind === 'loaded' ? s.policy : undefined;
  }

  /** Why the server may not start or run: the managed policy is broken, denies it, blocks it or reviewed another command. */
  blockReason(server: string, config?: ServerConfig): string | undefined {
    const s = this.current();
    if (s.kind === 'broken') return `${BY_ORGANIZATION} ${s.path} could not be read (${s.error})`;
    if (s.kind !== 'loaded') return undefined;
    const denied = denyMatch(s.policy.restrictions.deny, server, config);
    if (denied) return `${BY_ORGANIZATION} denies '${server}': ${denied.what}${denied.entry.reason ? ` (${denied.entry.reason})` : ''}`;
    return policyBlockReason(s.policy, BY_ORGANIZATION, server, config);
  }

  alwaysAsk(server: string, tool: string): boolean {
    return this.loaded()?.alwaysAsk.some((r) => r.server === server && (r.tool === tool || r.tool === '*')) ?? false;
  }

  serverEntry(server: string): TeamPolicy['servers'][string] | undefined {
    const p = this.loaded();
    return p && Object.hasOwn(p.servers, server) ? p.servers[server] : undefined;
  }

  restrictions(): ManagedPolicy['restrictions'] | undefined {
    return this.loaded()?.restrictions;
  }
}

function readJsonObject(path: string): { value: Record<string, unknown> } | { error: string } {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(path, 'utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { error: 'the file does not hold a JSON object' };
    return { value: value as Record<string, unknown> };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
