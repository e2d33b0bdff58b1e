// What a local server may reach, whether this machine really enforces it, and the person's way to
// change it. Tighter limits apply at once; looser ones go to the broker bound to the launch on screen
// (the desktop app asks in a native dialog). Suggestions are shown, never applied on their own.
import { useEffect, useId, useState } from 'react';
import type { LimitsEnforcement, LimitsProfile } from '../../../shared/limits';
import { isLooser, readOnly, sameLimits, summarizeLimits } from '../../../shared/limits';
import { ALL_NETWORK_ENV } from '../../../shared/network-env';
import { useApi, useActions, useApp } from '../store/context';
import type { UiServer } from '../store/normalize';
import { VisibleText } from '../ui/VisibleText';
import { LimitsBadge } from './LimitsBadge';
import { UnenforcedLimits } from './UnenforcedLimits';

type Row = { path: string; write: boolean };

function rowsOf(p: LimitsProfile): Row[] | 'host' {
  if (p.filesystem === 'host') return 'host';
  return [...p.filesystem.read.map((path) => ({ path, write: false })), ...p.filesystem.write.map((path) => ({ path, write: true }))];
}

function profileOf(network: boolean, rows: Row[] | 'host', passEnv: string[], noPassEnv: string[] | undefined): LimitsProfile {
  return {
    network: network ? 'unrestricted' : 'none',
    filesystem: rows === 'host' ? 'host' : { read: rows.filter((r) => !r.write).map((r) => r.path), write: rows.filter((r) => r.write).map((r) => r.path) },
    passEnv,
    ...(noPassEnv?.length ? { noPassEnv } : {}),
  };
}

const STATE_TEXT: Record<LimitsEnforcement['network'], string> = { enforced: 'enforced', 'not enforced': 'NOT enforced', 'no limit': 'no limit' };

export function LimitsPanel({ server }: { server: UiServer }) {
  const api = useApi();
  const { run, refreshServers } = useActions();
  const unsupported = useApp((s) => s.unsupported.setLimits);
  const id = useId();
  const view = server.limits;
  const [draft, setDraft] = useState<LimitsProfile | undefined>(view?.profile);
  const [newPath, setNewPath] = useState('');
  const [error, setError] = useState('');
  const stored = JSON.stringify(view?.profile);
  useEffect(() => setDraft(view?.profile), [stored]); // eslint-disable-line react-hooks/exhaustive-deps
  if (!view || !draft) return null;

  const rows = rowsOf(draft);
  const set = (next: Partial<{ network: boolean; rows: Row[] | 'host'; passEnv: string[]; noPassEnv: string[] }>) =>
    setDraft(profileOf(next.network ?? draft.network !== 'none', next.rows ?? rows, next.passEnv ?? draft.passEnv, next.noPassEnv ?? draft.noPassEnv));
  const networkEnvOff = draft.noPassEnv?.includes(ALL_NETWORK_ENV) ?? false;
  const changed = !sameLimits(draft, view.profile) || JSON.stringify(draft) !== stored;
  const looser = isLooser(draft, view.profile);
  const e = view.enforcement;

  const save = async () => {
    if (rows !== 'host' && rows.some((r) => !r.path.startsWith('/'))) return setError('Every folder must be an absolute path (starting with /).');
    setError('');
    // Looser limits are approved with the launch the person has on screen; tighter ones need nothing.
    await run('setLimits', () => (looser && server.launch?.hash ? api.setLimits(server.name, draft, server.launch.hash) : api.setLimits(server.name, draft)));
    await refreshServers();
  };

  const addPath = () => {
    const p = newPath.trim();
    if (!p.startsWith('/')) return setError('Enter an absolute path (starting with /).');
    setError('');
    set({ rows: [...(rows === 'host' ? [] : rows), { path: p, write: false }] });
    setNewPath('');
  };

  return (
    <section className="block" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Limits</h3>
      <p>
        <LimitsBadge view={view} />
      </p>
      {view.unenforced ? (
        <UnenforcedLimits server={server} unenforced={view.unenforced} />
      ) : (
        <p className="small">
          {e.sandbox === 'none' ? (
            <>
              Not sandboxed on this machine: <VisibleText text={e.reason ?? 'no sandbox is available'} />.
            </>
          ) : (
            <>
              Enforced by {e.sandbox === 'bubblewrap' ? 'bubblewrap' : 'sandbox-exec'}
              {e.reason ? (
                <>
                  {' '}
                  (<VisibleText text={e.reason} />)
                </>
              ) : null}
              .
            </>
          )}
        </p>
      )}
      {e.caveats?.map((c, i) => (
        <p key={i} className="small">
          <strong>Not covered here:</strong> <VisibleText text={c} />
          {e.fix ? (
            <>
              {' '}
              (fix: <VisibleText text={e.fix} />)
            </>
          ) : null}
        </p>
      ))}
      <ul className="small" aria-label="How each limit stands here">
        <li>Network: {STATE_TEXT[e.network]}</li>
        <li>Files: {STATE_TEXT[e.filesystem]}</li>
        <li>Processes: {e.processes === 'enforced' ? 'enforced (its own PID namespace: the whole tree ends with it)' : STATE_TEXT[e.processes]}</li>
        <li>
          Environment: scrubbed
          {draft.passEnv.length ? (
            <>
              , plus <VisibleText text={draft.passEnv.join(', ')} />
            </>
          ) : null}
        </li>
        <li>
          Network variables (proxies, CA certificates, package indexes):{' '}
          {networkEnvOff ? (
            'not passed'
          ) : view.networkEnv?.length ? (
            <>
              passed: <VisibleText text={view.networkEnv.join(', ')} /> (names only: a proxy address can hold a password)
            </>
          ) : (
            'none is set where Countersign runs'
          )}
        </li>
      </ul>
      {view.hidden && view.hidden.length > 0 && (
        <div className="small">
          Hidden from this server, whatever its folders say:
          <ul aria-label="Hidden from this server">
            {view.hidden.map((h) => (
              <li key={h.path}>
                <code>
                  <VisibleText text={h.path} />
                </code>{' '}
                (<VisibleText text={h.what} />)
              </li>
            ))}
          </ul>
        </div>
      )}
      {view.running && (
        <p className="small muted">
          Running now under: <VisibleText text={view.running.badge} />
          {view.running.enforcement.runsWithoutLimits ? ' — WITHOUT its limits, as you allowed' : ''}
        </p>
      )}
      {view.offer && (
        <div className="banner" role="note">
          <p className="small">
            Suggested (not applied):{' '}
            <strong>
              <VisibleText text={summarizeLimits(view.offer.limits)} />
            </strong>
          </p>
          <ul className="small">
            {view.offer.why.map((w, i) => (
              <li key={i}>
                <VisibleText text={w} />
              </li>
            ))}
          </ul>
          <button type="button" className="btn" onClick={() => setDraft(view.offer!.limits)}>
            Use the suggestion
          </button>
        </div>
      )}
      <fieldset className="field">
        <legend>Edit</legend>
        <label>
          <input type="checkbox" checked={draft.network === 'none'} onChange={(ev) => set({ network: !ev.target.checked })} /> No network
        </label>
        <p className="muted small">A host allowlist is not available yet: the network is all or nothing.</p>
        <label>
          <input type="radio" name={`${id}-fs`} checked={rows === 'host'} onChange={() => set({ rows: 'host' })} /> All my files (no limit)
        </label>
        <label>
          <input type="radio" name={`${id}-fs`} checked={rows !== 'host'} onChange={() => set({ rows: rows === 'host' ? [] : rows })} /> Only these folders;
          nothing else of my home
        </label>
        {rows !== 'host' && (
          <>
            <ul aria-label="Folders it may see">
              {rows.length === 0 && <li className="muted small">No folders: it sees none of your files.</li>}
              {rows.map((r, i) => (
                <li key={`${r.path}-${i}`}>
                  <code>
                    <VisibleText text={r.path} />
                  </code>{' '}
                  <select
                    aria-label={`Access to ${r.path}`}
                    value={r.write ? 'write' : 'read'}
                    onChange={(ev) => set({ rows: rows.map((x, j) => (j === i ? { ...x, write: ev.target.value === 'write' } : x)) })}
                  >
                    <option value="read">read-only</option>
                    <option value="write">read and write</option>
                  </select>{' '}
                  <button type="button" className="btn btn-quiet" onClick={() => set({ rows: rows.filter((_, j) => j !== i) })}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
            <div className="btn-row">
              <input
                aria-label="Folder to add"
                value={newPath}
                onChange={(ev) => setNewPath(ev.target.value)}
                placeholder="/home/me/project"
                spellCheck={false}
              />
              <button type="button" className="btn" onClick={addPath}>
                Add folder
              </button>
              <button type="button" className="btn" disabled={!rows.some((r) => r.write)} onClick={() => setDraft(readOnly(draft))}>
                Make all read-only
              </button>
            </div>
          </>
        )}
        <label>
          <input type="checkbox" checked={!networkEnvOff} onChange={(ev) => set({ noPassEnv: ev.target.checked ? [] : [ALL_NETWORK_ENV] })} /> Pass the network
          variables (proxies, CA certificates, package indexes)
        </label>
        <label className="small">
          Also pass these variables of Countersign’s environment (names, comma-separated):{' '}
          <input
            aria-label="Variables to pass"
            value={draft.passEnv.join(', ')}
            spellCheck={false}
            onChange={(ev) =>
              set({
                passEnv: ev.target.value
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
              })
            }
          />
        </label>
      </fieldset>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="btn-row">
        <button type="button" className="btn btn-primary" disabled={!changed || unsupported} onClick={() => void save()}>
          {looser ? 'Loosen limits (asks your consent)' : 'Apply limits'}
        </button>
        {changed && (
          <button type="button" className="btn btn-quiet" onClick={() => setDraft(view.profile)}>
            Undo changes
          </button>
        )}
      </div>
      <p className="muted small">
        {changed
          ? looser
            ? 'These limits let it reach more than now: they need your consent again, and its running sessions restart.'
            : 'Tighter limits apply at once: its running sessions end and restart under them.'
          : 'Tighter limits apply at once; looser ones need your consent again.'}
      </p>
    </section>
  );
}
