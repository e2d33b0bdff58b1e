// Consent on the command line. On a terminal the person answers y/N to what was just printed. Without
// one (a script, or a shell an agent drives) nobody can be asked, so nothing is granted unless the command
// names exactly what it grants: --yes and the hash(es) the command printed, which the core checks against
// what it would grant now. `--yes` alone never grants anything, on a terminal or not.
import { createInterface } from 'node:readline/promises';

/** Nothing changed: no one could be asked, and the command did not name what it grants. */
export class ConsentRefused extends Error {
  override name = 'ConsentRefused';
}

/** One hash the grant is bound to: the flag that carries it, what was printed, what was given. */
export interface Bound {
  flag: string;
  /** The hash printed above (undefined: nothing of this kind to bind, e.g. no tool listing yet). */
  printed: string | undefined;
  given: string | undefined;
  /** How to give it, when not `--flag <printed>` (e.g. `--hash TOOL=<h>`). */
  usage?: string;
  /** The core does not check this one (a setting): the command compares it to what it printed. */
  checkHere?: boolean;
}

const needed = (bound: Bound[]): Bound[] => bound.filter((b) => b.printed !== undefined || b.given !== undefined);
const flags = (bound: Bound[]): string => bound.map((b) => b.usage ?? `--${b.flag} ${b.printed ?? '<hash>'}`).join(' ');

/**
 * Resolves true when the person (terminal) or the command line (--yes with every hash) consents, false
 * when the person said no; throws ConsentRefused when nobody could be asked.
 */
export async function consent(question: string, opts: { yes: boolean; bound: Bound[] }): Promise<boolean> {
  const bound = needed(opts.bound);
  for (const b of bound) {
    if (b.checkHere && b.given !== undefined && b.given !== b.printed) {
      throw new ConsentRefused(
        `nothing changed: --${b.flag} ${b.given} is not what is printed above (it changed after it was shown to you). Look at it again.`,
      );
    }
  }
  if (opts.yes) {
    const missing = bound.filter((b) => b.given === undefined);
    if (missing.length) {
      throw new ConsentRefused(`nothing changed: --yes grants only what it names. Add ${flags(missing)} (printed above) to grant exactly that.`);
    }
    return true;
  }
  if (!process.stdin.isTTY) {
    throw new ConsentRefused(
      `nothing changed: there is no terminal to ask you on. To grant exactly what is printed above, run again with --yes ${flags(bound)}.`,
    );
  }
  return ask(question);
}

/** A question before taking something away (a rejection): without a terminal it goes ahead. */
export async function confirmRemoval(question: string, opts: { yes?: boolean } = {}): Promise<boolean> {
  if (opts.yes || !process.stdin.isTTY) return true;
  return ask(question);
}

async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
