// One MCP client: its config files, each server with whether it goes through Countersign, and the
// Wrap and Unwrap buttons (each opens a review first).
import type { ClientServerView, ClientView } from '../../../shared/clients';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';

const STATE: Record<ClientServerView['state'], { label: string; cls: string }> = {
  wrapped: { label: 'Through Countersign', cls: 'badge-ok' },
  direct: { label: 'Not protected', cls: 'badge-danger' },
  unsupported: { label: 'Not protected, cannot wrap', cls: 'badge-warning' },
};

function ServerRow({ server }: { server: ClientServerView }) {
  const s = STATE[server.state];
  const target = server.url ?? (server.commandLine ?? []).join(' ');
  return (
    <li>
      <span>
        <strong>
          <VisibleText text={server.name} />
        </strong>
        {server.group && (
          <span className="muted small">
            {' '}
            <VisibleText text={server.group} />
          </span>
        )}
      </span>
      <span className={`badge ${s.cls}`}>
        {server.state === 'wrapped' ? <Icon name="shield" size={13} /> : <Icon name="shieldOff" size={13} />}
        {s.label}
      </span>
      <code className="client-target">
        {server.state === 'wrapped' ? (
          <>
            Countersign server “<VisibleText text={server.countersignServer ?? ''} />”
          </>
        ) : (
          <VisibleText text={target} />
        )}
      </code>
      {server.note && (
        <span className="client-note">
          <VisibleText text={server.note} />
        </span>
      )}
    </li>
  );
}

interface Props {
  client: ClientView;
  busy: boolean;
  onWrap(): void;
  onUnwrap(): void;
}

export function ClientCard({ client, busy, onWrap, onUnwrap }: Props) {
  const servers = client.files.flatMap((f) => f.servers);
  const open = servers.filter((s) => s.state === 'direct').length;
  const wrapped = servers.filter((s) => s.state === 'wrapped').length;
  return (
    <>
      <h2>
        {client.name}
        <span className={`badge ${open ? 'badge-danger' : 'badge-ok'}`}>
          {servers.length === 0 ? 'No servers' : open ? `${open} of ${servers.length} not protected` : `${wrapped} of ${servers.length} through Countersign`}
        </span>
      </h2>
      {client.files.map((f) => (
        <div key={f.path} className="client-file">
          <p className="client-file-path">
            <code>
              <VisibleText text={f.path} />
            </code>{' '}
            <span className="muted small">
              {f.scope === 'project' ? 'project' : 'user'}
              {f.wrappedAt ? `, wrapped ${new Date(f.wrappedAt).toLocaleString()}` : ''}
            </span>
          </p>
          {f.error && (
            <p className="field-error">
              <VisibleText text={f.error} />
            </p>
          )}
          {f.readOnly && (
            <p className="field-error">
              <VisibleText text={f.readOnly} />
            </p>
          )}
          {!f.error && !f.servers.length && <p className="muted small">No servers in this file.</p>}
          {f.servers.length > 0 && (
            <ul className="client-servers" aria-label={`Servers in ${f.path}`}>
              {f.servers.map((s) => (
                <ServerRow key={`${s.group ?? ''}/${s.name}`} server={s} />
              ))}
            </ul>
          )}
        </div>
      ))}
      <div className="btn-row">
        {open > 0 && (
          <button type="button" className="btn btn-primary" disabled={busy} onClick={onWrap}>
            <Icon name="shield" />
            Wrap {client.name}
          </button>
        )}
        {client.canUnwrap && (
          <button type="button" className="btn" disabled={busy} onClick={onUnwrap}>
            Unwrap {client.name}
          </button>
        )}
      </div>
    </>
  );
}
