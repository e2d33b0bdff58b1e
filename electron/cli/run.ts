// The `countersign` command: finds the subcommand and loads only the module it needs, so `connect` (one
// process per MCP server per client) starts as a bare relay, not the whole CLI. Used by the Node entry
// (main.ts) and by the desktop app's command-line mode (electron/main/entry.ts).
import { resolveDataDir } from '../broker/store/data-dir.js';
import { intFlag, lastFlag, parseArgs, splitDataDir, UsageError } from './args.js';
import { CLIENTS_USAGE, EXPORT_USAGE, POLICY_USAGE, SERVERS_USAGE, UNDO_USAGE } from './usage.js';
import { connectArgs } from './connect-argv.js';

const USAGE = `Countersign: approve what AI agents do through MCP.

countersign serve [--port N] [--host ADDR] [--no-open] [--approval-timeout SECONDS] [--session-idle SECONDS]
countersign connect <server> [--client <id>]
${SERVERS_USAGE}
${POLICY_USAGE}
${EXPORT_USAGE}
${CLIENTS_USAGE}
${UNDO_USAGE}
countersign log [--json] [--follow] [--verify] [--show-secrets]
countersign doctor [--json] [--project DIR]   (checks this setup and explains each problem with its fix)

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
    (await import('../broker/core/heap-tuning.js')).keepYoungGenerationSmall();
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
  export: async (sub, dataDir) => (await import('./export.js')).runExport(sub, dataDir),
  log: async (sub, dataDir) => (await import('./log.js')).runLog(sub, dataDir),
  clients: async (sub, dataDir) => (await import('./clients.js')).runClients(sub, dataDir),
  wrap: async (sub, dataDir) => (await import('./wrap.js')).runWrap(sub, dataDir),
  unwrap: async (sub, dataDir) => (await import('./wrap.js')).runUnwrap(sub, dataDir),
  doctor: async (sub, dataDir) => (await import('./doctor.js')).runDoctor(sub, dataDir),
  undo: async (sub, dataDir) => (await import('./undo.js')).runUndo(sub, dataDir),
};

async function dispatch(command: string | undefined, sub: string[], dataDir: string, opts: CliOptions): Promise<number> {
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return command === undefined ? 1 : 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) throw new UsageError(`unknown command '${command}'`);
  return run(sub, dataDir, opts);
}

/**
 * Runs one command; resolves to its exit code. Errors are printed here, never thrown: an expected one
 * as its sentence (with its fix), an unexpected one as one line and the file that holds its stack.
 */
export async function runCli(argv: string[], opts: CliOptions): Promise<number> {
  const { dataDir: flag, rest } = splitDataDir(argv);
  const [command, ...sub] = rest;
  const dataDir = resolveDataDir({ flag });
  try {
    return await dispatch(command, sub, dataDir, opts);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`countersign: ${err.message}\n\n${USAGE}\n`);
      return 64;
    }
    // Loaded only now: these modules are heavy, and `connect` must start light.
    const { explainCliError } = await import('./cli-errors.js');
    const explained = await explainCliError(err, dataDir);
    if (explained) {
      process.stderr.write(`countersign: ${explained}\n`);
      return 1;
    }
    const [{ writeCrashLog }, { VERSION }] = await Promise.all([import('./crash-log.js'), import('../broker/core/version.js')]);
    const file = writeCrashLog(err, command, dataDir, VERSION);
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    process.stderr.write(
      file
        ? `countersign: unexpected error: ${first}. The details are in ${file}; please include them if you report it.\n`
        : `countersign: unexpected error: ${(err as Error).stack ?? String(err)}\n`,
    );
    return 1;
  }
}
