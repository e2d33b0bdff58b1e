// Servers: a list with status and trust on the left, the selected server (or the add form) on the right.
import { organizationTrusts } from '../../../shared/catalogue-text';
import { useState } from 'react';
import { useApp } from '../store/context';
import { StatusBadge, TrustBadge } from '../ui/Badges';
import { LimitsBadge } from './LimitsBadge';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';
import { AddServerForm } from './AddServerForm';
import { ImportServers } from './ImportServers';
import { NoServers } from './NoServers';
import { ServerDetail } from './ServerDetail';
import { UnsealedGrants } from './UnsealedGrants';

export function ServersScreen() {
  const servers = useApp((s) => s.servers);
  const [selected, setSelected] = useState<string | undefined>(undefined); // a server's name, or 'add' for the form
  if (!servers)
    return (
      <p className="pad muted" role="status">
        Loading servers…
      </p>
    );
  if (servers.length === 0) {
    return (
      <div className="empty">
        <h1>No servers yet</h1>
        <p>Countersign relays between your AI client and MCP servers. Add a server, then point your client at Countersign instead of the server.</p>
        <NoServers />
      </div>
    );
  }
  const current = selected === 'add' ? undefined : (servers.find((s) => s.name === selected) ?? servers[0]);
  return (
    <div className="split">
      <section className="split-list" aria-labelledby="servers-title">
        <header className="list-head">
          <h1 id="servers-title">Servers</h1>
          <button type="button" className="btn btn-small" onClick={() => setSelected('add')} aria-pressed={selected === 'add'}>
            <Icon name="plus" />
            Add server
          </button>
        </header>
        <UnsealedGrants />
        <ul className="server-list" aria-label="Servers">
          {servers.map((s) => (
            <li key={s.name}>
              <button type="button" className="server-item" aria-current={current?.name === s.name ? 'true' : undefined} onClick={() => setSelected(s.name)}>
                <span className="server-item-name">
                  <VisibleText text={s.name} />
                </span>
                <span className="server-item-badges">
                  <StatusBadge status={s.status} />
                  <TrustBadge trusted={s.trusted} organization={organizationTrusts(s.catalogue)} />
                  <LimitsBadge view={s.limits} />
                  {s.pendingChanges > 0 && <span className="badge badge-warning">{s.pendingChanges} to review</span>}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section className="split-detail" aria-label={current ? `Server ${current.name}` : 'Add a server'}>
        {current ? (
          <ServerDetail key={current.name} server={current} onRemoved={() => setSelected(undefined)} />
        ) : (
          <div className="pad">
            <h2>Add a server</h2>
            <AddServerForm onAdded={(name) => setSelected(name)} />
            <h2>Import from a client’s config</h2>
            <ImportServers />
          </div>
        )}
      </section>
    </div>
  );
}
