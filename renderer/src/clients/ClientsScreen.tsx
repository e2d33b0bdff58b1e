// Clients: the MCP clients on this machine, which of their servers go through Countersign, and Wrap /
// Unwrap for each. Both show what they would change and write only after the person confirms.
import { useEffect, useState, type FormEvent } from 'react';
import type { ClientId, ClientView } from '../../../shared/clients';
import { useActions, useApi } from '../store/context';
import { Checkup } from './Checkup';
import { ClientCard } from './ClientCard';
import { ClientReview, type Review } from './ClientReview';
import { useClients } from './useClients';

export function ClientsScreen() {
  const api = useApi();
  const { run, notify, refreshServers } = useActions();
  const [project, setProject] = useState<string | undefined>(undefined);
  const [draft, setDraft] = useState('');
  const { clients, error, unsupported, reload } = useClients(project);
  const [review, setReview] = useState<{ id: ClientId; review: Review } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  // A review closed with Cancel or Escape gives focus back to its client's first button.
  const [refocus, setRefocus] = useState<ClientId | undefined>(undefined);
  useEffect(() => {
    if (!refocus) return;
    document.getElementById(`client-${refocus}`)?.querySelector<HTMLButtonElement>('.btn-row button:not(:disabled)')?.focus();
    setRefocus(undefined);
  }, [refocus]);
  const opts = project ? { project } : {};

  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    try {
      await fn();
    } finally {
      setBusy(false);
    }
  };
  const previewWrap = (c: ClientView) =>
    act(async () => {
      const preview = await run('previewWrap', () => api.previewWrap(c.id, opts));
      if (preview) setReview({ id: c.id, review: { kind: 'wrap', preview } });
    });
  const previewUnwrap = (c: ClientView) =>
    act(async () => {
      const preview = await run('previewUnwrap', () => api.previewUnwrap(c.id, opts));
      if (preview) setReview({ id: c.id, review: { kind: 'unwrap', preview } });
    });
  const confirm = (c: ClientView, r: Review) =>
    act(async () => {
      if (r.kind === 'wrap') {
        const done = await run('wrapClient', () => api.wrapClient(c.id, opts, r.preview.planHash));
        if (done) {
          const names = done.files.flatMap((f) => f.wrapped);
          notify(
            'info',
            `${c.name}: ${names.length} ${names.length === 1 ? 'server goes' : 'servers go'} through Countersign now. ` +
              (done.added.length ? `New servers (${done.added.join(', ')}) wait for you to approve their commands in Servers. ` : '') +
              `Restart ${c.name} to use them. To undo, choose Unwrap ${c.name} (or run countersign unwrap ${c.id}).`,
          );
        }
      } else {
        const done = await run('unwrapClient', () => api.unwrapClient(c.id, opts, r.preview.planHash));
        if (done) notify('info', `${c.name}’s config is back as it was. Countersign keeps its servers; remove them in Servers if you no longer need them.`);
      }
      setReview(undefined);
      await Promise.all([reload(), refreshServers()]);
    });
  const lookIn = (e: FormEvent) => {
    e.preventDefault();
    setProject(draft.trim() || undefined);
  };

  if (unsupported)
    return (
      <div className="pad">
        <h1>Clients</h1>
        <p>This broker cannot list clients yet. Update Countersign.</p>
      </div>
    );
  const found = (clients ?? []).filter((c) => c.found);
  const missing = (clients ?? []).filter((c) => !c.found);
  const open = found.reduce((n, c) => n + c.files.reduce((m, f) => m + f.servers.filter((s) => s.state === 'direct').length, 0), 0);
  return (
    <div className="pad">
      <h1>Clients</h1>
      <p>
        Countersign protects a client’s servers by changing its config so each one starts through Countersign. You see every change before it is written, a
        backup is kept, and Unwrap puts the file back.
      </p>
      <form className="form btn-row" onSubmit={lookIn} aria-label="Project folder">
        <label htmlFor="client-project">Also look in a project folder</label>
        <input id="client-project" type="text" spellCheck={false} placeholder="/home/me/src/app" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit" className="btn btn-small">
          Look
        </button>
      </form>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {!clients && !error && (
        <p className="muted" role="status">
          Looking for clients…
        </p>
      )}
      {clients && (
        <p role="status">
          {found.length === 0
            ? 'No MCP client config was found on this machine.'
            : open
              ? `${open} ${open === 1 ? 'server starts' : 'servers start'} without Countersign.`
              : 'Every server Countersign can wrap goes through it.'}
        </p>
      )}
      {found.map((c) => (
        <section key={c.id} id={`client-${c.id}`} className="block client-card" aria-label={c.name}>
          <ClientCard client={c} busy={busy} onWrap={() => void previewWrap(c)} onUnwrap={() => void previewUnwrap(c)} />
          {review?.id === c.id && (
            <ClientReview
              clientName={c.name}
              review={review.review}
              busy={busy}
              onConfirm={() => void confirm(c, review.review)}
              onCancel={() => {
                setReview(undefined);
                setRefocus(c.id);
              }}
            />
          )}
        </section>
      ))}
      <Checkup project={project} />
      {missing.length > 0 && (
        <details className="snippet">
          <summary>Not found here: {missing.map((c) => c.name).join(', ')}</summary>
          <ul className="small">
            {missing.map((c) => (
              <li key={c.id}>
                {c.name}: looked in{' '}
                {c.looked.map((p, i) => (
                  <span key={p}>
                    {i > 0 && ', '}
                    <code>{p}</code>
                  </span>
                ))}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
