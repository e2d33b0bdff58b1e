// The `countersign` command.
import { resolveDataDir } from '../broker/data-dir.js';
import { InstanceLockError } from '../broker/instance-lock.js';
import { SettingsError } from '../broker/settings-store.js';
import { intFlag, lastFlag, parseArgs, UsageError } from './args.js';
import { CoreRefusal } from './core-client.js';
import { runConnect } from './connect.js';
import { runLog } from './log.js';
import { runServe } from './serve.js';
import { runServers, SERVERS_USAGE } from './servers.js';

const USAGE = `Countersign: approve what AI agents do through MCP.

countersign serve [--port N] [--host ADDR] [--no-open] [--approval-timeout SECONDS]
countersign connect <server>
${SERVERS_USAGE}
countersign log [--json] [--follow] [--verify]

Every command takes --data-dir DIR (else COUNTERSIGN_HOME, else the app's data folder).`;

/** Takes --data-dir out of argv wherever it appears, so subcommands need not know it. */
function splitDataDir(argv: string[]): { dataDir?: string; rest: string[] } {
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

async function main(argv: string[]): Promise<number> {
  const { dataDir: flag, rest } = splitDataDir(argv);
  const [command, ...sub] = rest;
  const dataDir = resolveDataDir({ flag });
  switch (command) {
    case 'serve': {
      const args = parseArgs(sub, { values: ['port', 'host', 'approval-timeout', 'progress-interval-ms'], booleans: ['no-open'] });
      return runServe({
        dataDir,
        host: lastFlag(args, 'host'),
        port: intFlag(args, 'port', 0, 65535),
        open: !args.bools.has('no-open'),
        approvalTimeoutSeconds: intFlag(args, 'approval-timeout', 1, 86_400),
        progressIntervalMs: intFlag(args, 'progress-interval-ms', 10, 3_600_000),
      });
    }
    case 'connect': {
      const server = sub[0];
      if (!server) throw new UsageError('connect needs a server name: countersign connect <server>');
      return runConnect(server, dataDir);
    }
    case 'servers':
      return runServers(sub, dataDir);
    case 'log':
      return runLog(sub, dataDir);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE + '\n');
      return command === undefined ? 1 : 0;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`countersign: ${err.message}\n\n${USAGE}\n`);
      process.exitCode = 64;
    } else if (err instanceof SettingsError || err instanceof InstanceLockError || err instanceof CoreRefusal) {
      process.stderr.write(`countersign: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`countersign: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
