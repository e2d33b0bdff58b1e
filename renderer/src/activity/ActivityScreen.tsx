// The audit log: every call and trust decision, newest first, with filters, search and export.
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { AuditEntry, LogQuery } from '../../../shared/api';
import { logMatcher } from '../../../shared/log-query';
import { useApi, useActions, useApp } from '../store/context';
import { Icon } from '../ui/Icon';
import { ActivityRow } from './ActivityRow';
import { downloadJsonl } from './export-jsonl';
import { SessionRevert } from '../undo/SessionRevert';
import { UndoCell } from '../undo/UndoCell';
import { UndoReview } from '../undo/UndoReview';
import { escapeControl } from '../../../shared/escape';

const PAGE = 200;
const SEARCH_DELAY_MS = 250;

export function ActivityScreen() {
  const api = useApi();
  const { run, refreshUndoable } = useActions();
  const logTail = useApp((s) => s.logTail);
  const undoable = useApp((s) => s.undoable);
  const bySnapshot = useMemo(() => (undoable ? new Map(undoable.map((c) => [c.snapshot, c])) : undefined), [undoable]);
  // The entry whose undo preview is open (one at a time), and the entry to bring into view.
  const [undoing, setUndoing] = useState<number>();
  const [reveal, setReveal] = useState<{ seq: number; n: number }>();
  const servers = useApp((s) => s.servers) ?? [];
  const id = useId();
  const [server, setServer] = useState('');
  const [tool, setTool] = useState('');
  const [decision, setDecision] = useState<'' | 'allow' | 'deny'>('');
  const [search, setSearch] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const [entries, setEntries] = useState<AuditEntry[] | undefined>(undefined);

  const query = useMemo<LogQuery>(
    () => ({
      ...(server && { server }),
      ...(tool.trim() && { tool: tool.trim() }),
      ...(decision && { decision }),
      ...(search.trim() && { search: search.trim() }),
      limit,
    }),
    [server, tool, decision, search, limit],
  );

  // The newest seq this list has taken into account; `refetch` bumps when live updates missed some.
  const seenSeq = useRef(0);
  const [refetch, setRefetch] = useState(0);
  const tail = useRef(logTail);
  tail.current = logTail;

  // Debounced, so typing a search costs one query. New entries do not query again: see below.
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      // Everything up to the newest entry heard of by now is in the answer (the broker writes first).
      const asked = tail.current.at(-1)?.seq ?? 0;
      void run('queryLog', () => api.queryLog(query)).then((res) => {
        if (!live || !res) return;
        // Entries heard of since are added on top by the effect below (once, if the answer had them).
        seenSeq.current = asked;
        setEntries(res.slice().reverse());
      });
    }, SEARCH_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, run, query, refetch]);

  // New entries arrive with their events: those the query selects go on top, the log is not read again.
  useEffect(() => {
    if (!entries || !logTail.length) return;
    const fresh = logTail.filter((e) => e.seq > seenSeq.current);
    if (!fresh.length) return;
    // The tail is bounded: entries it no longer holds were missed, so ask the broker instead.
    if (seenSeq.current > 0 && fresh[0]!.seq > seenSeq.current + 1) return setRefetch((n) => n + 1);
    seenSeq.current = fresh[fresh.length - 1]!.seq;
    const matches = logMatcher(query);
    const shown = fresh.filter(matches).reverse();
    // An entry written while the query ran may be in its answer already.
    if (shown.length)
      setEntries((prev) => {
        const have = new Set((prev ?? []).slice(0, shown.length * 2 + 1).map((e) => e.seq));
        return [...shown.filter((e) => !have.has(e.seq)), ...(prev ?? [])].slice(0, query.limit);
      });
  }, [logTail, entries, query]);

  // What can be undone is read when Activity opens; the store keeps it fresh from then on.
  useEffect(() => void refreshUndoable(), [refreshUndoable]);

  /** Opens an entry; one the filters hide is shown by clearing them. */
  const show = (seq: number) => {
    if (!entries?.some((e) => e.seq === seq)) {
      setServer('');
      setTool('');
      setDecision('');
      setSearch('');
    }
    setReveal((r) => ({ seq, n: (r?.n ?? 0) + 1 }));
  };

  const exportAll = async () => {
    const all = await run('queryLog', () => api.queryLog({ ...query, limit: 100_000 }));
    if (all) downloadJsonl(all, `countersign-activity-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
  };

  return (
    <div className="activity pad">
      <header className="list-head">
        <h1>Activity</h1>
        <button type="button" className="btn btn-small" onClick={() => void exportAll()}>
          <Icon name="download" />
          Export JSONL
        </button>
      </header>
      {undoable && <SessionRevert undoable={undoable} />}
      <form className="filters" role="search" aria-label="Filter activity" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor={`${id}-server`}>Server</label>
          <select id={`${id}-server`} value={server} onChange={(e) => setServer(e.target.value)}>
            <option value="">All servers</option>
            {servers.map((s) => (
              <option key={s.name} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-tool`}>Tool (exact name)</label>
          <input id={`${id}-tool`} value={tool} onChange={(e) => setTool(e.target.value)} spellCheck={false} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-decision`}>Decision</label>
          <select id={`${id}-decision`} value={decision} onChange={(e) => setDecision(e.target.value as typeof decision)}>
            <option value="">Allowed and denied</option>
            <option value="allow">Allowed</option>
            <option value="deny">Denied</option>
          </select>
        </div>
        <div className="field field-grow">
          <label htmlFor={`${id}-search`}>Search tools, servers, arguments</label>
          <input id={`${id}-search`} type="search" value={search} onChange={(e) => setSearch(e.target.value)} spellCheck={false} />
        </div>
      </form>
      {entries === undefined ? (
        <p className="muted" role="status">
          Loading activity…
        </p>
      ) : entries.length === 0 ? (
        <p className="muted">
          No activity matches. Every call Countersign relays, allowed or denied, is recorded here and in <code>audit.jsonl</code>.
        </p>
      ) : (
        <>
          <p className="muted small" role="status">
            {entries.length === limit ? `Newest ${limit} entries` : `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`}, newest first.
          </p>
          <ul className="log-list" aria-label="Audit log">
            {entries.map((e) => (
              <ActivityRow
                key={e.seq}
                entry={e}
                reveal={reveal?.seq === e.seq ? reveal.n : undefined}
                undo={<UndoCell entry={e} undoable={bySnapshot} onUndo={() => setUndoing(e.seq)} onShow={show} />}
                review={
                  undoing === e.seq &&
                  e.snapshot && (
                    <UndoReview
                      target={{ snapshot: e.snapshot }}
                      title={`Undo what #${e.seq} changed: ${escapeControl(e.tool === '*' ? 'several calls' : e.tool)} on ${escapeControl(e.server === '*' ? 'Countersign' : e.server)}`}
                      onClose={() => setUndoing(undefined)}
                    />
                  )
                }
              />
            ))}
          </ul>
          {entries.length === limit && (
            <button type="button" className="btn" onClick={() => setLimit(limit + PAGE * 5)}>
              Show older entries
            </button>
          )}
        </>
      )}
    </div>
  );
}
