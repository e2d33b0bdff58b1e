// Nothing is waiting. Say what Countersign is doing, and how to send it work: first by wrapping the
// clients already on this machine (the Clients view), never with a command a registry resolves.
import type { Ref } from 'react';
import { count } from '../lib/format';
import { useApp } from '../store/context';
import { NoServers } from '../servers/NoServers';
import { ClientsPointer } from '../clients/ClientsPointer';
import { NotifyOffer } from '../notify/BrowserNotifySettings';
import { ConnectHelp } from './ConnectHelp';
import { StoppedNotices } from './StoppedNotices';
import { LaunchRequests } from './LaunchRequests';

export function QueueEmpty({ headingRef }: { headingRef: Ref<HTMLHeadingElement> }) {
  const servers = useApp((s) => s.servers);
  const status = useApp((s) => s.status);
  const loaded = useApp((s) => s.loaded);
  const launches = useApp((s) => s.launches.length);
  if (!loaded)
    return (
      <p className="pad muted" role="status">
        Loading…
      </p>
    );
  if (servers && servers.length === 0) {
    return (
      <div className="empty">
        <h1 ref={headingRef} tabIndex={-1}>
          Nothing to approve yet
        </h1>
        <p>
          Countersign sits between your AI clients and their MCP servers, and holds each tool call for you. Start with the clients you already use, or add a
          server.
        </p>
        <ClientsPointer />
        <NoServers />
      </div>
    );
  }
  const sessions = (servers ?? []).reduce((n, s) => n + (s.sessions ?? 0), 0);
  return (
    <div className="empty">
      <h1 ref={headingRef} tabIndex={-1}>
        {launches ? 'No calls are waiting for you' : 'Nothing is waiting for you'}
      </h1>
      <LaunchRequests />
      <StoppedNotices />
      <p>
        {status?.paused
          ? 'Countersign is paused: every call is denied until you resume.'
          : `Countersign is relaying ${count(servers?.length ?? 0, 'server')} with ${count(sessions, 'open client session')}. Calls that need your decision appear here, oldest first, and new ones are announced.`}
      </p>
      <NotifyOffer />
      <ClientsPointer />
      <ConnectHelp />
    </div>
  );
}
