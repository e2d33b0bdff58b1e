// `countersign clients`: the MCP clients on this machine, their config files and servers, and which of
// those go through Countersign. Through the core (withCore), as every CLI command that reads state.
import path from 'node:path';
import type { ClientServerView, ClientView } from '../../shared/clients.js';
import { escapeControl, terminalJson } from '../../shared/escape.js';
import { lastFlag, parseArgs, UsageError } from './args.js';
import { withCore } from './core-client.js';

const say = (text: string): void => void process.stdout.write(text);
const esc = (text: string): string => escapeControl(text);

/** The core's refusals (no such file, a stale plan, a failed write) are sentences: print them, not a stack. */
export async function reported(fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UsageError) throw err;
    process.stderr.write(`countersign: ${escapeControl((err as Error).message)}\n`);
    return 1;
  }
}

/** The project folder: --project, else the folder the command runs in. */
export function projectOf(flag: string | undefined): string {
  return path.resolve(flag ?? process.cwd());
}

function target(s: ClientServerView): string {
  return s.url ?? (s.commandLine ?? []).join(' ');
}

function serverLine(s: ClientServerView, width: number): string {
  const name = esc(s.group ? `${s.name} (${s.group})` : s.name).padEnd(width);
  switch (s.state) {
    case 'wrapped':
      return `    protected      ${name}  through Countersign's '${esc(s.countersignServer ?? '')}'${s.note ? `\n                   ${' '.repeat(width)}  note: ${esc(s.note)}` : ''}`;
    case 'direct':
      return `    NOT protected  ${name}  ${esc(target(s))}`;
    default:
      return `    NOT protected  ${name}  ${esc(target(s))}\n                   ${' '.repeat(width)}  ${esc(s.note ?? '')}`;
  }
}

export function printClients(clients: ClientView[]): void {
  const servers = clients.flatMap((c) => c.files.flatMap((f) => f.servers));
  const width = Math.min(32, Math.max(8, ...servers.map((s) => (s.group ? `${s.name} (${s.group})` : s.name).length)));
  for (const c of clients.filter((v) => v.found)) {
    say(`${c.name} (${c.id})\n`);
    for (const f of c.files) {
      say(`  ${esc(f.path)}${f.scope === 'project' ? ' (project)' : ''}${f.wrappedAt ? `, wrapped ${f.wrappedAt}` : ''}\n`);
      if (f.readOnly) say(`    ${esc(f.readOnly)}\n`);
      if (f.error) say(`    ${esc(f.error)}\n`);
      else if (!f.servers.length) say('    no servers\n');
      for (const s of f.servers) say(serverLine(s, width) + '\n');
    }
  }
  const missing = clients.filter((c) => !c.found);
  if (missing.length) say(`Not found: ${missing.map((c) => c.name).join(', ')}.\n`);
  const wrapped = servers.filter((s) => s.state === 'wrapped').length;
  say(`\n${wrapped} of ${servers.length} servers go through Countersign.`);
  const open = clients.filter((c) => c.files.some((f) => f.servers.some((s) => s.state === 'direct')));
  say(open.length ? ` Protect the others with: ${open.map((c) => `countersign wrap ${c.id}`).join(', ')}\n` : '\n');
}

export function runClients(argv: string[], dataDir: string): Promise<number> {
  return reported(() => runClientsNow(argv, dataDir));
}

async function runClientsNow(argv: string[], dataDir: string): Promise<number> {
  const args = parseArgs(argv, { values: ['project'], booleans: ['json'] });
  const clients = await withCore(dataDir, (api) => api.listClients({ project: projectOf(lastFlag(args, 'project')) }));
  if (args.bools.has('json')) say(terminalJson(clients, 2) + '\n');
  else printClients(clients);
  return 0;
}
