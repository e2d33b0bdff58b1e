// A person's consent decisions as the UI makes them: read the view, then decide bound to the hashes
// shown (the launch, the listing, each held change). Works on any `api(method, ...args)` caller.
import type { ServerChanges, ServerView } from '../../shared/api.js';

export type ApiCaller = <T = unknown>(method: string, ...args: unknown[]) => Promise<T>;

export async function viewOf(api: ApiCaller, name: string): Promise<ServerView> {
  const found = (await api<ServerView[]>('listServers')).find((s) => s.name === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
}

export async function seenOf(api: ApiCaller, name: string): Promise<{ launchHash: string; listingHash?: string }> {
  const v = await viewOf(api, name);
  return { launchHash: v.launch.hash, listingHash: v.listingHash };
}

export async function approveShown(api: ApiCaller, name: string): Promise<void> {
  await api('approveLaunch', name, (await viewOf(api, name)).launch.hash);
}

export async function trustShown(api: ApiCaller, name: string): Promise<void> {
  await api('setTrust', name, true, await seenOf(api, name));
}

export async function pinShown<T>(api: ApiCaller, name: string): Promise<T> {
  return api<T>('pinServer', name, await seenOf(api, name));
}

/** Accepts the held changes shown now (only `tools`, or every one with the new identity). */
export async function acceptShown(api: ApiCaller, server: string, tools?: string[]): Promise<void> {
  const changes = (await api<ServerChanges[]>('listChanges')).find((c) => c.server === server);
  if (!changes) throw new Error(`nothing of ${server} waits for review`);
  const chosen = changes.tools.filter((t) => !tools || tools.includes(t.name)).map((t) => ({ name: t.name, hash: t.hash }));
  await (tools || !changes.identityHash
    ? api('reviewChanges', server, 'accept', chosen)
    : api('reviewChanges', server, 'accept', chosen, changes.identityHash));
}
