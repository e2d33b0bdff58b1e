// The managed deny list: servers that may not run, by name, package or command line (glob patterns, * and
// ?). A server that matches any entry never starts and its calls are refused, with the organization's reason.
import type { ServerConfig } from '../../../shared/api.js';
import type { Restrictions } from '../../../shared/managed-policy-schema.js';
import { escapeControl } from '../../../shared/escape.js';
import { findPackageLaunch } from '../trust/package-launch.js';

export type DenyEntry = Restrictions['deny'][number];

/** A glob (* any run of characters, ? one) as an anchored expression; everything else is literal. */
export function globRegExp(glob: string): RegExp {
  const body = [...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 's');
}

/** What a configured server is matched on: its name, its package (npx, uvx, docker …) and its command line. */
function subjects(name: string, config: ServerConfig | undefined): { name: string; packages: string[]; commands: string[] } {
  if (!config || !('command' in config)) return { name, packages: [], commands: config && 'url' in config ? [config.url] : [] };
  const launch = findPackageLaunch(config);
  const argv = [config.command, ...(config.args ?? [])];
  const base = config.command.split(/[\\/]/).pop() ?? config.command;
  return {
    name,
    packages: launch ? [launch.name, ...(launch.version ? [`${launch.name}@${launch.version}`] : [])] : [],
    // The whole line, and the same with the command's bare name: `/usr/bin/npx x` matches `npx *`.
    commands: [argv.join(' '), [base, ...(config.args ?? [])].join(' ')],
  };
}

export function denyMatch(deny: DenyEntry[], name: string, config: ServerConfig | undefined): { entry: DenyEntry; what: string } | undefined {
  const s = subjects(name, config);
  for (const entry of deny) {
    if (entry.name && globRegExp(entry.name).test(s.name)) return { entry, what: `its name matches '${escapeControl(entry.name)}'` };
    if (entry.package && s.packages.some((p) => globRegExp(entry.package!).test(p)))
      return { entry, what: `its package matches '${escapeControl(entry.package)}'` };
    if (entry.command && s.commands.some((c) => globRegExp(entry.command!).test(c)))
      return { entry, what: `its command matches '${escapeControl(entry.command)}'` };
  }
  return undefined;
}
