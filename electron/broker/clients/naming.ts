// The Countersign name for a client's server: the same launch anywhere is one server (found by its
// launch hash); a name already taken by a different launch gets the client's id as a clear suffix.
import anyAscii from 'any-ascii';
import type { ServerConfig } from '../../../shared/api.js';
import { launchHash } from '../trust/launch-consent.js';

const MAX = 64;

/**
 * A client's entry name as a Countersign server name (letters, digits, . _ -, which the broker, the
 * `connect <name>` argument and the look-alike checks all rely on): letters of any script are
 * transliterated (Ünïcode → Unicode, Сервер → Server, ☃ → snowman2), not dropped.
 */
export function sanitizeName(name: string): string {
  const cleaned = anyAscii(name.normalize('NFC'))
    .replace(/:([a-z0-9_+-]+):/g, '-$1-')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX)
    .replace(/[-.]+$/, '');
  return cleaned || 'server';
}

function withSuffix(base: string, suffix: string): string {
  return base.slice(0, MAX - suffix.length) + suffix;
}

export interface Chosen {
  name: string;
  /** Countersign already has (or this plan adds) this exact launch under `name`. */
  reuse: boolean;
  note?: string;
}

/** `taken` maps every Countersign server name (and those this plan adds) to its launch hash. */
export function chooseName(entry: string, config: ServerConfig, client: string, taken: ReadonlyMap<string, string>): Chosen {
  const hash = launchHash(config);
  const base = sanitizeName(entry);
  if (taken.get(base) === hash) return { name: base, reuse: true };
  for (const [name, h] of taken) {
    if (h === hash) return { name, reuse: true, note: `the same server as Countersign's '${name}'` };
  }
  if (!taken.has(base)) {
    return { name: base, reuse: false, note: base === entry ? undefined : `named '${base}' (Countersign names use letters, digits, . _ -)` };
  }
  for (let n = 1; ; n++) {
    const name = withSuffix(base, n === 1 ? `-${client}` : `-${client}-${n}`);
    if (!taken.has(name)) return { name, reuse: false, note: `named '${name}': Countersign's '${base}' starts a different command` };
  }
}
