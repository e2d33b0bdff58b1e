// What `countersign clients` and the Clients view show: each client, its files, and for each server
// whether it goes through Countersign (and which Countersign server), starts directly, or cannot be wrapped.
import type { ClientFileView, ClientServerView } from '../../../shared/clients.js';
import { formatKindOf } from './catalogue.js';
import type { ScannedEntry, ScannedFile } from './detect.js';

export interface ViewContext {
  /** Names of this Countersign's servers. */
  servers: ReadonlySet<string>;
  /** Whether a wrapped entry's --data-dir (or none) is this Countersign's. */
  ours(dataDir: string | undefined): boolean;
  wrappedAt(file: ScannedFile): string | undefined;
}

export function fileView(file: ScannedFile, ctx: ViewContext): ClientFileView {
  const { location } = file;
  return {
    path: location.path,
    scope: location.scope,
    ...(location.project && { project: location.project }),
    format: formatKindOf(location.path),
    ...(file.error && { error: `Countersign cannot read this file, so it leaves it alone: ${file.error}` }),
    ...(file.readOnly && { readOnly: `Countersign will not replace this file: ${file.readOnly}.` }),
    servers: file.entries.map((e) => serverView(e, ctx)),
    ...(ctx.wrappedAt(file) && { wrappedAt: ctx.wrappedAt(file) }),
  };
}

function serverView(entry: ScannedEntry, ctx: ViewContext): ClientServerView {
  const m = entry.meaning;
  const base = { name: entry.name, ...(entry.group && { group: entry.group }), ...m.view };
  if (m.through) {
    const ref = m.through;
    const note = !ctx.ours(ref.dataDir)
      ? `goes through the Countersign of another data folder (${ref.dataDir ?? 'the default one'})`
      : ref.viaRegistry
        ? 'starts with npx countersign, so a package registry decides what runs; wrap again to use the absolute command'
        : !ctx.servers.has(ref.server)
          ? `Countersign has no server named '${ref.server}': the client will get an error`
          : undefined;
    return { ...base, state: 'wrapped', countersignServer: ref.server, ...(note && { note }) };
  }
  if (m.config) return { ...base, state: 'direct' };
  return { ...base, state: 'unsupported', note: `wrap leaves it alone: ${m.problem ?? 'Countersign cannot start it'}` };
}
