// Whether a command line is a plain `connect` that connect-main.ts (dist/connect.mjs) may run by itself.
import { parseClientId } from '../broker/client-key.js';
import { lastFlag, parseArgs, splitDataDir } from './args.js';

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
    const args = parseArgs(sub, { values: ['client'] });
    const [server, extra] = args.positional;
    if (!server || extra !== undefined || args.rest.length) return undefined;
    const client = lastFlag(args, 'client');
    if (client !== undefined && !parseClientId(client).ok) return undefined;
    return { server, dataDir, client };
  } catch {
    return undefined;
  }
}
