// Every client entry: does it go through Countersign (this one), does the command it runs still exist
// (a Node a version manager removed, Countersign's files moved), will a version manager take it away,
// and which start without Countersign.
import { accessSync, constants, existsSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import { CLIENT_IDS, type ClientFileView, type ClientServerView, type ClientView } from '../../../shared/clients.js';
import type { DoctorFinding } from '../../../shared/doctor.js';
import { isVersionManaged } from '../core/cli-command.js';

const area = 'clients' as const;

function runs(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const isNode = (command: string): boolean => /^node(\.exe)?$/i.test(basename(command));

/** What is wrong with a wrapped entry's command; undefined when it would start. */
function wrappedEntry(client: ClientView, file: ClientFileView, s: ClientServerView): DoctorFinding[] {
  const subject = { client: client.id, file: file.path, entry: s.name, ...(s.countersignServer ? { server: s.countersignServer } : {}) };
  const where = `${client.name}'s '${s.name}' (${file.path})`;
  const again = `countersign unwrap ${client.id} && countersign wrap ${client.id}${file.project ? ` --project ${file.project}` : ''} (from the Node or app you keep)`;
  const out: DoctorFinding[] = [];
  const [command, script] = s.commandLine ?? [];
  if (command && isAbsolute(command) && !runs(command)) {
    out.push({
      area,
      code: isNode(command) ? 'client.node-missing' : 'client.command-missing',
      level: 'problem',
      summary: `${where} runs ${command}, which ${existsSync(command) ? 'is not executable' : 'no longer exists'}${isNode(command) ? ' (a Node that was uninstalled or moved?)' : ''}: the client cannot start it.`,
      fix: again,
      subject: { ...subject, path: command },
    });
  } else if (command && isNode(command) && script && /countersign\.mjs$/.test(script) && !existsSync(script)) {
    out.push({
      area,
      code: 'client.countersign-missing',
      level: 'problem',
      summary: `${where} runs Countersign from ${script}, which no longer exists (Countersign moved or was removed).`,
      fix: again,
      subject: { ...subject, path: script },
    });
  } else if (command && isVersionManaged(command)) {
    out.push({
      area,
      code: 'client.version-manager',
      level: 'warning',
      summary: `${where} runs a Node that a version manager installed (${command}): uninstalling that version breaks the entry.`,
      detail: 'The client then only says that the command was not found.',
      fix: `install a system Node 22 or later (Homebrew, your package manager, nodejs.org) and wrap again: ${again}; or use the desktop app's command`,
      subject: { ...subject, path: command },
    });
  }
  if (s.note) {
    const registry = /package registry/.test(s.note);
    const otherDir = /another data folder/.test(s.note);
    out.push({
      area,
      code: registry ? 'client.via-registry' : otherDir ? 'client.other-data-folder' : 'client.unknown-server',
      level: otherDir ? 'note' : 'warning',
      summary: `${where} ${s.note}.`,
      ...(otherDir ? {} : { fix: registry ? `countersign wrap ${client.id}` : `${again}, or add the server to Countersign` }),
      subject,
    });
  }
  return out;
}

export function clientFindings(clients: ClientView[]): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  for (const client of clients.filter((c) => c.found)) {
    for (const file of client.files) {
      const subject = { client: client.id, file: file.path };
      if (file.error) {
        out.push({
          area,
          code: 'client.unreadable',
          level: 'problem',
          summary: `${client.name}'s config ${file.path} cannot be read: ${file.error}`,
          fix: 'fix the file (the client cannot read it either), then check again',
          subject,
        });
        continue;
      }
      const wrapped = file.servers.filter((s) => s.state === 'wrapped');
      const troubles = wrapped.flatMap((s) => wrappedEntry(client, file, s));
      out.push(...troubles);
      const fine = wrapped.filter((s) => !troubles.some((t) => t.subject?.entry === s.name && t.level !== 'note'));
      if (fine.length) {
        out.push({
          area,
          code: 'client.wrapped',
          level: 'ok',
          summary: `${client.name} (${file.path}): ${fine.map((s) => `'${s.name}'`).join(', ')} ${fine.length === 1 ? 'goes' : 'go'} through Countersign, and the command${fine.length === 1 ? '' : 's'} exist${fine.length === 1 ? 's' : ''}.`,
          subject,
        });
      }
      const direct = file.servers.filter((s) => s.state === 'direct');
      if (direct.length) {
        out.push({
          area,
          code: 'client.direct',
          level: 'note',
          summary: `${client.name} (${file.path}) starts ${direct.map((s) => `'${s.name}'`).join(', ')} without Countersign: ${direct.length === 1 ? 'its calls are' : 'their calls are'} not checked.`,
          fix: `countersign wrap ${client.id}${file.project ? ` --project ${file.project}` : ''} (it shows the change first; countersign unwrap ${client.id} undoes it)`,
          subject,
        });
      }
      for (const s of file.servers.filter((x) => x.state === 'unsupported')) {
        out.push({
          area,
          code: 'client.unsupported',
          level: 'note',
          summary: `${client.name}'s '${s.name}' (${file.path}): ${s.note ?? 'Countersign cannot start it'}.`,
          subject: { ...subject, entry: s.name },
        });
      }
      if (file.readOnly) out.push({ area, code: 'client.read-only', level: 'note', summary: `${client.name}'s ${file.path}: ${file.readOnly}`, subject });
    }
  }
  if (!out.length)
    out.push({
      area,
      code: 'client.none',
      level: 'note',
      summary: `No MCP client config was found on this machine (looked for ${CLIENT_IDS.length} clients in their usual places).`,
      fix: 'countersign clients lists where each is looked for',
    });
  return out;
}

/** Entries that start through this Countersign, whatever their state (for the broker finding). */
export function wrappedHere(clients: ClientView[]): number {
  return clients.flatMap((c) => c.files.flatMap((f) => f.servers)).filter((s) => s.state === 'wrapped' && !/another data folder/.test(s.note ?? '')).length;
}
