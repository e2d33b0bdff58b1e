// A small argv parser: flags (--x v, --x=v, repeatable), booleans, and everything after `--` kept verbatim.

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string[]>;
  bools: Set<string>;
  rest: string[];
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], spec: { values?: string[]; booleans?: string[] }): ParsedArgs {
  const values = new Set(spec.values ?? []);
  const booleans = new Set(spec.booleans ?? []);
  const out: ParsedArgs = { positional: [], flags: new Map(), bools: new Set(), rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.rest = argv.slice(i + 1);
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq === -1 ? a.slice(2) : a.slice(2, eq);
      if (booleans.has(name) && eq === -1) {
        out.bools.add(name);
        continue;
      }
      if (!values.has(name)) throw new UsageError(`unknown option --${name}`);
      const value = eq === -1 ? argv[++i] : a.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      out.flags.set(name, [...(out.flags.get(name) ?? []), value]);
      continue;
    }
    out.positional.push(a);
  }
  return out;
}

export function lastFlag(args: ParsedArgs, name: string): string | undefined {
  return args.flags.get(name)?.at(-1);
}

/** K=V pairs from repeatable flags such as --env and --header. */
export function keyValues(args: ParsedArgs, name: string): Record<string, string> | undefined {
  const list = args.flags.get(name);
  if (!list) return undefined;
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${name} takes KEY=VALUE, got '${item}'`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

export function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const v = lastFlag(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/** Takes --data-dir out of argv wherever it appears, so subcommands need not know it. */
export function splitDataDir(argv: string[]): { dataDir?: string; rest: string[] } {
  const rest: string[] = [];
  let dataDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--data-dir') dataDir = argv[++i];
    else if (a.startsWith('--data-dir=')) dataDir = a.slice('--data-dir='.length);
    else rest.push(a);
  }
  return { dataDir, rest };
}
