// `countersign servers …`: edits the settings file. A running broker reads it afresh on each use.
import type { ServerConfig } from '../../shared/api.js';
import { escapeControl } from '../../shared/escape.js';
import { ensureDataDir } from '../broker/data-dir.js';
import { parseServerConfig, SettingsError, SettingsStore } from '../broker/settings-store.js';
import { launchHash, launchView } from '../broker/trust/launch-consent.js';
import { TrustStore } from '../broker/trust/trust-store.js';
import { keyValues, lastFlag, parseArgs, UsageError } from './args.js';

export const SERVERS_USAGE = `countersign servers add <name> [--env K=V]… [--cwd DIR] -- <command> [args…]
countersign servers add <name> --url URL [--header K=V]…
countersign servers list [--json]
countersign servers remove <name>
countersign servers approve <name>     (lets its exact command line run)
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
      if ('command' in clean) {
        process.stdout.write(`It will not start until you approve its command line: countersign servers approve ${name} (or in the UI).\n`);
      }
      return 0;
    }
    case 'approve': {
      if (!name) throw new UsageError('servers approve needs a name');
      const config = openStore(dataDir).getServer(name);
      if (!config) throw new SettingsError(`No server named "${name}".`);
      const trust = TrustStore.open(dataDir, (w) => process.stderr.write(`countersign: ${escapeControl(w)}\n`));
      const view = launchView(config, trust.get(name));
      if (view.commandLine) {
        process.stdout.write(`'${escapeControl(name)}' will run exactly:\n`);
        view.commandLine.forEach((arg, i) => process.stdout.write(`  [${i}] ${escapeControl(arg)}\n`));
        if (view.cwd) process.stdout.write(`  in ${escapeControl(view.cwd)}\n`);
        if (view.envNames.length) process.stdout.write(`  with environment variables: ${view.envNames.map((n) => escapeControl(n)).join(', ')} (values not shown)\n`);
      } else {
        process.stdout.write(`'${escapeControl(name)}' is a remote server at ${escapeControl(view.url ?? '')}; nothing runs on this machine.\n`);
      }
      trust.update(name, (r) => (r.launch = { hash: launchHash(config), approvedAt: new Date().toISOString(), by: 'person' }));
      process.stdout.write('Approved.\n');
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
      const trust = TrustStore.open(dataDir, (w) => process.stderr.write(`countersign: ${escapeControl(w)}\n`));
      if (verb === 'remove') {
        store.removeServer(name);
        trust.forget(name);
      } else {
        store.setTrusted(name, verb === 'trust');
        // Trust is granted to a recorded state: the server's next listing becomes the record.
        const record = trust.get(name);
        if (verb === 'trust' && Object.keys(record.tools).length === 0) trust.update(name, (r) => (r.recordNextListing = true));
      }
      process.stdout.write(`${verb === 'remove' ? 'Removed' : verb === 'trust' ? 'Trusted' : 'Untrusted'} '${name}'.\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown servers command '${verb ?? ''}'\n${SERVERS_USAGE}`);
  }
}
