// `countersign servers …`: edits the settings file. A running broker reads it afresh on each use.
import type { ServerConfig } from '../../shared/api.js';
import { escapeControl } from '../../shared/escape.js';
import { ensureDataDir } from '../broker/data-dir.js';
import { parseServerConfig, SettingsStore } from '../broker/settings-store.js';
import { keyValues, lastFlag, parseArgs, UsageError } from './args.js';

export const SERVERS_USAGE = `countersign servers add <name> [--env K=V]… [--cwd DIR] -- <command> [args…]
countersign servers add <name> --url URL [--header K=V]…
countersign servers list [--json]
countersign servers remove <name>
countersign servers trust <name>
countersign servers untrust <name>`;

function openStore(dataDir: string): SettingsStore {
  ensureDataDir(dataDir);
  const { store, warnings } = SettingsStore.open({ dataDir });
  for (const w of warnings) process.stderr.write(`countersign: ${escapeControl(w)}\n`);
  return store;
}

export function runServers(argv: string[], dataDir: string): number {
  const [verb, ...rest] = argv;
  const args = parseArgs(rest, { values: ['env', 'cwd', 'url', 'header'], booleans: ['json'] });
  const name = args.positional[0];
  switch (verb) {
    case 'add': {
      if (!name) throw new UsageError('servers add needs a name');
      const url = lastFlag(args, 'url');
      let config: ServerConfig;
      if (url) {
        if (args.rest.length) throw new UsageError('give either --url or a command after --, not both');
        config = { url, headers: keyValues(args, 'header') };
      } else {
        const [command, ...cmdArgs] = args.rest;
        if (!command) throw new UsageError('servers add needs a command after --, or --url');
        config = { command, args: cmdArgs, env: keyValues(args, 'env'), cwd: lastFlag(args, 'cwd') };
      }
      const clean = parseServerConfig(JSON.parse(JSON.stringify(config)));
      openStore(dataDir).addServer(name, clean);
      process.stdout.write(`Added '${name}'. It starts untrusted: every call asks until you trust it.\n`);
      return 0;
    }
    case 'list': {
      const store = openStore(dataDir);
      const servers = store.listServers();
      if (args.bools.has('json')) {
        const out = Object.entries(servers).map(([n, config]) => ({ name: n, trusted: store.isTrusted(n), config }));
        process.stdout.write(JSON.stringify(out, null, 2) + '\n');
        return 0;
      }
      const names = Object.keys(servers);
      if (!names.length) {
        process.stdout.write('No servers yet. Add one with: countersign servers add <name> -- <command> [args…]\n');
        return 0;
      }
      for (const n of names) {
        const c = servers[n]!;
        const target = 'url' in c ? c.url : [c.command, ...(c.args ?? [])].join(' ');
        process.stdout.write(`${escapeControl(n)}\t${store.isTrusted(n) ? 'trusted' : 'untrusted'}\t${escapeControl(target)}\n`);
      }
      return 0;
    }
    case 'remove':
    case 'trust':
    case 'untrust': {
      if (!name) throw new UsageError(`servers ${verb} needs a name`);
      const store = openStore(dataDir);
      if (verb === 'remove') store.removeServer(name);
      else store.setTrusted(name, verb === 'trust');
      process.stdout.write(`${verb === 'remove' ? 'Removed' : verb === 'trust' ? 'Trusted' : 'Untrusted'} '${name}'.\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown servers command '${verb ?? ''}'\n${SERVERS_USAGE}`);
  }
}
