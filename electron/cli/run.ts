// The `countersign` command: finds the subcommand and loads only the module it needs, so `connect` (one
// process per MCP server per client) starts as a bare relay, not the whole CLI. Used by the Node entry
// (main.ts) and by the desktop app's command-line mode (electron/main/entry.ts).
import { resolveDataDir } from '../broker/data-dir.js';
import { intFlag, lastFlag, parseArgs, splitDataDir, UsageError } from './args.js';
import { CLIENTS_USAGE, POLICY_USAGE, SERVERS_USAGE } from './usage.js';
import { connectArgs } from './connect-argv.js';

const USAGE = `Countersign: approve what AI agents do through MCP.

countersign serve [--port N] [--host ADDR] [--no-open] [--approval-timeout SECONDS] [--session-idle SECONDS]
countersign connect <server> [--client <id>]
${SERVERS_USAGE}
${POLICY_USAGE}
${CLIENTS_USAGE}
countersign log [--json] [--follow] [--verify]

Every command takes --data-dir DIR (else COUNTERSIGN_HOME, else the app's data folder).`;

export interface CliOptions {
  /** Where the approval UI's files are, for `serve`. */
  rendererDir: string;
}

type Command = (sub: string[], dataDir: string, opts: CliOptions) => Promise<number>;

/** Each command's module is imported when that command runs, never before. */
const COMMANDS: Record<string, Command> = {
  serve: async (sub, dataDir, opts) => {
    const args = parseArgs(sub, { values: ['port', 'host', 'approval-timeout', 'progress-interval-ms', 'session-idle'], booleans: ['no-open'] });
    // Before the broker loads: its start-up would otherwise already grow the young generation.
    (await import('../broker/heap-tuning.js')).keepYoungGenerationSmall();
    const { runServe } = await import('./serve.js');
    return runServe({
      dataDir,
      rendererDir: opts.rendererDir,
      host: lastFlag(args, 'host'),
      port: intFlag(args, 'port', 0, 65535),
      open: !args.bools.has('no-open'),
      approvalTimeoutSeconds: intFlag(args, 'approval-timeout', 1, 86_400),
      progressIntervalMs: intFlag(args, 'progress-interval-ms', 10, 3_600_000),
      sessionIdleSeconds: intFlag(args, 'session-idle', 1, 7 * 86_400),
    });
  },
  connect: async (sub, dataDir) => {
    const { server, client } = connectArgs(sub);
    const { runConnect } = await import('./connect.js');
    return runConnect(server, dataDir, { client });
  },
  servers: async (sub, dataDir) => (await import('./servers.js')).runServers(sub, dataDir),
  policy: async (sub, dataDir) => (await import('./policy.js')).runPolicy(sub, dataDir),
  log: async (sub, dataDir) => (await import('./log.js')).runLog(sub, dataDir),
  clients: async (sub, dataDir) => (await import('./clients.js')).runClients(sub, dataDir),
  wrap: async (sub, dataDir) => (await import('./wrap.js')).runWrap(sub, dataDir),
  unwrap: async (sub, dataDir) => (await import('./wrap.js')).runUnwrap(sub, dataDir),
};

async function dispatch(argv: string[], opts: CliOptions): Promise<number> {
  const { dataDir: flag, rest } = splitDataDir(argv);
  const [command, ...sub] = rest;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return command === undefined ? 1 : 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) throw new UsageError(`unknown command '${command}'`);
  return run(sub, resolveDataDir({ flag }), opts);
}

/** Runs one command; resolves to its exit code. Errors are printed here, never thrown. */
export async function runCli(argv: string[], opts: CliOptions): Promise<number> {
  try {
    return await dispatch(argv, opts);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`countersign: ${err.message}\n\n${USAGE}\n`);
      return 64;
    }
    // Loaded only now: these modules are heavy, and `connect` must start light.
    const [{ SettingsError }, { InstanceLockError }, { CoreRefusal }, { ConsentRefused }] = await Promise.all([
      import('../broker/settings-store.js'), import('../broker/instance-lock.js'), import('./core-client.js'), import('./confirm.js'),
    ]);
    if (err instanceof SettingsError || err instanceof InstanceLockError || err instanceof CoreRefusal || err instanceof ConsentRefused) {
      process.stderr.write(`countersign: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`countersign: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}
