// `countersign servers …`: every change goes through the core (the running broker, or the same core
// in-process), so it is checked and audited exactly as the UI's.
import type { ServerConfig, ServerView } from '../../shared/api.js';
import { escapeControl } from '../../shared/escape.js';
import { parseServerConfig, SettingsError } from '../broker/settings-store.js';
import { keyValues, lastFlag, parseArgs, UsageError } from './args.js';
import { withCore, type CoreApi } from './core-client.js';
import { SERVERS_USAGE } from './usage.js';

export { SERVERS_USAGE };

const say = (text: string): void => void process.stdout.write(text);

async function view(api: CoreApi, name: string): Promise<ServerView> {
  const found = (await api.listServers()).find((s) => s.name === name);
  if (!found) throw new SettingsError(`No server named "${name}".`);
  return found;
}

export async function runServers(argv: string[], dataDir: string): Promise<number> {
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
      await withCore(dataDir, (api) => api.addServer(name, clean));
      say(`Added '${escapeControl(name)}'. It starts untrusted: every call asks until you trust it.\n`);
      if ('command' in clean) {
        say(`It will not start until you approve its command line: countersign servers approve ${escapeControl(name)} (or in the UI).\n`);
      }
      return 0;
    }
    case 'approve': {
      if (!name) throw new UsageError('servers approve needs a name');
      await withCore(dataDir, async (api) => {
        const { launch } = await view(api, name);
        if (launch.commandLine) {
          say(`'${escapeControl(name)}' will run exactly:\n`);
          launch.commandLine.forEach((arg, i) => say(`  [${i}] ${escapeControl(arg)}\n`));
          if (launch.cwd) say(`  in ${escapeControl(launch.cwd)}\n`);
          if (launch.envNames.length) say(`  with environment variables: ${launch.envNames.map((n) => escapeControl(n)).join(', ')} (values not shown)\n`);
        } else {
          say(`'${escapeControl(name)}' is a remote server at ${escapeControl(launch.url ?? '')}; nothing runs on this machine.\n`);
        }
        await api.approveLaunch(name);
      });
      say('Approved.\n');
      return 0;
    }
    case 'list': {
      const servers = await withCore(dataDir, (api) => api.listServers());
      if (args.bools.has('json')) {
        const out = servers.map((s) => ({ name: s.name, trusted: s.trusted, status: s.status, config: s.config }));
        say(JSON.stringify(out, null, 2) + '\n');
        return 0;
      }
      if (!servers.length) {
        say('No servers yet. Add one with: countersign servers add <name> -- <command> [args…]\n');
        return 0;
      }
      for (const s of servers) {
        const c = s.config;
        const target = 'url' in c ? c.url : [c.command, ...(c.args ?? [])].join(' ');
        say(`${escapeControl(s.name)}\t${s.trusted ? 'trusted' : 'untrusted'}\t${escapeControl(target)}\n`);
      }
      return 0;
    }
    case 'remove':
    case 'trust':
    case 'untrust': {
      if (!name) throw new UsageError(`servers ${verb} needs a name`);
      await withCore(dataDir, async (api) => {
        await view(api, name);
        if (verb === 'remove') await api.removeServer(name);
        else await api.setTrust(name, verb === 'trust');
      });
      say(`${verb === 'remove' ? 'Removed' : verb === 'trust' ? 'Trusted' : 'Untrusted'} '${escapeControl(name)}'.\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown servers command '${verb ?? ''}'\n${SERVERS_USAGE}`);
  }
}
