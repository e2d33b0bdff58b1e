// A server under limits this machine cannot enforce does not start (fail closed), unless the person
// said, for that server, that it may run without them. That consent is a sealed grant bound to the
// launch hash (command and limits), like launch consent: a hand edit grants nothing, and any change of
// the command or the limits asks again. It counts only while the sandbox cannot enforce the limits.
import type { ServerConfig } from '../../../shared/api.js';
import type { GrantSeal } from '../store/grant-seal.js';
import { launchHash } from './launch-consent.js';

export function runsWithoutLimits(seal: GrantSeal, name: string, config: ServerConfig): boolean {
  const granted = seal.grants().unenforced ?? {};
  return Object.hasOwn(granted, name) && granted[name] === launchHash(config);
}

/** Seals the person's consent for this exact launch (throws when it cannot be saved). */
export function allowWithoutLimits(seal: GrantSeal, name: string, config: ServerConfig): void {
  const hash = launchHash(config);
  seal.update((g) => void ((g.unenforced ??= {})[name] = hash));
}

/** Takes it back (the person, or the server was removed). */
export function withdrawWithoutLimits(seal: GrantSeal, name: string): void {
  seal.withdraw((g) => {
    if (g.unenforced) delete g.unenforced[name];
  });
}
