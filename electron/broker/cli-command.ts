// The absolute command that starts this installation's CLI. Client entries name it, never a registry
// name (`npx countersign` would install whatever package holds that name when the client starts).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CliCommand {
  /** Absolute path of the program to run. */
  command: string;
  /** Arguments before the CLI's own (the launcher script, for a checkout). */
  args: string[];
}

/** From a checkout or an npm install: this Node, absolutely, running the package's bin script. */
export function countersignCommand(from: string = fileURLToPath(import.meta.url), node: string = process.execPath): CliCommand {
  const root = packageRoot(from);
  if (!root) throw new Error(`Countersign could not find its own package folder from ${from}.`);
  return { command: node, args: [path.join(root, 'bin', 'countersign.mjs')] };
}

/** The folder of the countersign package that holds `file` (source, dist bundle or test alike). */
export function packageRoot(file: string): string | undefined {
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && existsSync(path.join(dir, 'bin', 'countersign.mjs'))) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'countersign') return dir;
      } catch {
        // Not ours: keep walking up.
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}
