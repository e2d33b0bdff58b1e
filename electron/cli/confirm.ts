// A yes/no question on the terminal. Without a terminal (scripts, tests) there is no one to ask: the
// command goes ahead with exactly what it printed, as a script asked it to.
import { createInterface } from 'node:readline/promises';

export async function confirm(question: string, opts: { yes?: boolean } = {}): Promise<boolean> {
  if (opts.yes || !process.stdin.isTTY) return true;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
