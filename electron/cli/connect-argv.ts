// `connect`'s arguments, read one way for the full CLI (run.ts) and for connect-main.ts (dist/connect.mjs),
// which runs a plain `connect` by itself.
import { parseClientId } from '../broker/calls/client-key.js';
import { lastFlag, parseArgs, splitDataDir, UsageError } from './args.js';

/** `connect <server> [--client <id>]`: throws a UsageError for anything else. */
export function connectArgs(sub: string[]): { server: string; client?: string } {
  const args = parseArgs(sub, { values: ['client'] });
  const [server, extra] = args.positional;
  if (!server) throw new UsageError('connect needs a server name: countersign connect <server> [--client <id>]');
  if (extra !== undefined || args.rest.length) throw new UsageError(`connect takes one server name, got more: '${extra ?? args.rest[0]}'`);
  return { server, client: lastFlag(args, 'client') };
}

export interface PlainConnect {
  server: string;
  dataDir?: string;
  client?: string;
}

/** The `connect` this argv asks for, when the full CLI would run it without a usage error; else undefined. */
export function plainConnect(argv: string[]): PlainConnect | undefined {
  try {
    const { dataDir, rest } = splitDataDir(argv);
    const [command, ...sub] = rest;
    if (command !== 'connect') return undefined;
    const { server, client } = connectArgs(sub);
    if (client !== undefined && !parseClientId(client).ok) return undefined;
    return { server, dataDir, client };
  } catch {
    return undefined;
  }
}
