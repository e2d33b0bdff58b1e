// The path to a user policy file is a grant like trust: it takes effect only as the person set or
// confirmed it through Countersign, which seals it (store/grant-seal.ts). A path written into
// settings.json by hand is ignored, listed for confirmation (store/unsealed-grants.ts). Removing a policy
// removes friction, so the sealed path stays in effect when settings.json loses or changes it by hand;
// only the person removes it. COUNTERSIGN_POLICY, set by whoever starts Countersign, wins over both.
// While the sealed records are missing or unsafe, the path settings.json names applies: a user policy
// only adds friction, so applying one nobody confirmed can hold a server back but never let one run.
import { createHash } from 'node:crypto';
import type { PolicyStatus } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import { escapeControl } from '../../../shared/escape.js';
import type { GrantSeal } from '../store/grant-seal.js';
import type { SettingsStore } from '../store/settings-store.js';

/** What the person confirms of a hand-written path: the path itself. */
export function policyPathHash(file: string): string {
  return createHash('sha256')
    .update(canonicalJson({ policyPath: file }))
    .digest('hex');
}

/** What a change of the policy path binds to: the path it replaces and the one it sets (null: none). */
export function policyChangeHash(from: string | undefined, to: string | null): string {
  return createHash('sha256')
    .update(canonicalJson({ from: from ?? null, to }))
    .digest('hex');
}

export interface PolicyPathChoice {
  /** The file in effect. */
  path?: string;
  from?: PolicyStatus['from'];
  /** A path settings.json names that the person did not set (ignored unless the seal is unreadable). */
  unconfirmed?: string;
  /** The sealed path is in effect, but settings.json no longer names it (a hand edit). */
  missingFromFile?: string;
}

export function policyPathChoice(env: NodeJS.ProcessEnv, settings: SettingsStore, seal: GrantSeal): PolicyPathChoice {
  const inFile = settings.getSettings().policyPath;
  const sealed = seal.policyPath();
  const unconfirmed = inFile !== undefined && inFile !== sealed ? inFile : undefined;
  const missingFromFile = sealed !== undefined && inFile === undefined ? sealed : undefined;
  const choice = { ...(unconfirmed ? { unconfirmed } : {}), ...(missingFromFile ? { missingFromFile } : {}) };
  if (env.COUNTERSIGN_POLICY) return { path: env.COUNTERSIGN_POLICY, from: 'environment', ...choice };
  if (sealed) return { path: sealed, from: 'person', ...choice };
  // The seal cannot say what the person chose: the file's path adds friction, never lets anything run.
  if (unconfirmed && (seal.unsafe() || seal.recordsLost())) return { path: unconfirmed, from: 'unconfirmed', ...choice };
  return choice;
}

/** The status lines: a path nobody confirmed, a sealed path settings.json lost. */
export function policyPathWarnings(choice: PolicyPathChoice): string[] {
  const out: string[] = [];
  if (choice.unconfirmed && choice.from === 'unconfirmed') {
    out.push(
      `Countersign's sealed records cannot be read, so it applies the team policy file settings.json names (${escapeControl(choice.unconfirmed)}) for the friction it adds; nobody confirmed it, and it pre-approves nothing.`,
    );
  } else if (choice.unconfirmed) {
    out.push(
      `settings.json names the team policy file ${escapeControl(choice.unconfirmed)}, but it was not set in Countersign (a hand edit), so it is ignored. Confirm it in Countersign (Servers → Not confirmed) or run: countersign policy confirm`,
    );
  }
  if (choice.missingFromFile) {
    out.push(
      `settings.json no longer names the team policy file ${escapeControl(choice.missingFromFile)} you set in Countersign (a hand edit). It stays in effect; remove it in Countersign (Settings → Team policy) or run: countersign policy unset`,
    );
  }
  return out;
}
