// Recognises an entry that already starts through Countersign (`… countersign … connect <server>`),
// whichever way it names the command, and builds the entry that wrap writes.
import type { CliCommand } from '../core/cli-command.js';

export interface CountersignRef {
  server: string;
  client?: string;
  dataDir?: string;
  /** Started through a package runner (npx countersign…): a registry decides what runs. */
  viaRegistry: boolean;
}

const RUNNERS = /^(npx|bunx|pnpx|npm|pnpm|yarn|bun)(\.cmd|\.exe)?$/i;
const PACKAGE = /^countersign(@[^/\\\s]*)?$/i;
const BIN = /^countersign(\.exe|\.cmd|\.ps1|\.mjs|\.js)?$/i;
const BUNDLE = /[\\/]countersign[\\/](dist[\\/]cli\.mjs|bin[\\/]countersign\.mjs)$/i;

function basename(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

export function parseCountersignArgv(argv: readonly string[]): CountersignRef | undefined {
  const at = argv.findIndex((arg) => PACKAGE.test(arg) || BIN.test(basename(arg)) || BUNDLE.test(arg));
  if (at < 0) return undefined;
  const connect = argv.indexOf('connect', at + 1);
  const server = connect < 0 ? undefined : argv[connect + 1];
  if (!server || server.startsWith('-')) return undefined;
  const ref: CountersignRef = { server, viaRegistry: at > 0 && RUNNERS.test(basename(argv[0]!)) && PACKAGE.test(argv[at]!) };
  for (let i = connect + 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--client') ref.client = argv[++i];
    else if (arg.startsWith('--client=')) ref.client = arg.slice('--client='.length);
    else if (arg === '--data-dir') ref.dataDir = argv[++i];
    else if (arg.startsWith('--data-dir=')) ref.dataDir = arg.slice('--data-dir='.length);
  }
  return ref;
}

/** The launch keys of a wrapped entry: the absolute command, then `connect <server> --client <id>`. */
export function wrappedLaunch(command: CliCommand, server: string, client: string, dataDirArgs: string[]): { command: string; args: string[] } {
  return { command: command.command, args: [...command.args, 'connect', server, '--client', client, ...dataDirArgs] };
}
