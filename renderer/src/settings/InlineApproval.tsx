// Approval inside the client: per client, off by default. Turning it on is the person's choice (the
// desktop app confirms it in a native dialog); the broker keeps it until it stops.
import { useEffect, useId, useState } from 'react';
import type { InlineApprovalClient } from '../../../shared/api';
import { useActions, useApi, useApp } from '../store/context';
import { VisibleText } from '../ui/VisibleText';

export function InlineApproval() {
  const api = useApi();
  const { run } = useActions();
  const id = useId();
  const settingsVersion = useApp((s) => s.settings);
  const [clients, setClients] = useState<InlineApprovalClient[] | undefined>();
  const load = async () => setClients(await run('listInlineApproval', () => api.listInlineApproval()));
  useEffect(() => void load(), [api, settingsVersion]);

  const toggle = async (client: string, enabled: boolean) => {
    await run('setInlineApproval', () => api.setInlineApproval(client, enabled));
    await load();
  };

  return (
    <section className="block" aria-labelledby={`${id}-inline`}>
      <h2 id={`${id}-inline`}>Approval inside the client</h2>
      <p className="muted small">
        A client that can show forms (MCP elicitation) can also offer short calls there: “Approve write_file on fs? [Approve] [Deny]”. The first answer wins,
        here or there. Only turn it on for a client that shows these forms to you: one that answers them itself would approve its own calls. Large previews,
        changed tools and Countersign’s own files are only approved here. Off by default; it lasts until Countersign stops.
      </p>
      {clients && clients.length === 0 && <p className="muted">No client that can show forms has asked for a decision yet.</p>}
      {clients && clients.length > 0 && (
        <ul className="plain-list" aria-label="Clients that can show forms">
          {clients.map((c) => (
            <li key={c.client}>
              <label>
                <input type="checkbox" checked={c.enabled} onChange={(e) => void toggle(c.client, e.target.checked)} /> Let{' '}
                <strong>
                  <VisibleText text={c.client} />
                </strong>{' '}
                answer pending calls in its own form
              </label>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
