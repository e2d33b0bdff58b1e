// The audit log: every call and trust decision, newest first, with filters, search and export.
import { useEffect, useId, useMemo, useState } from 'react';
import type { AuditEntry, LogQuery } from '../../../shared/api';
import { useApi, useActions, useApp } from '../store/context';
import { Icon } from '../ui/Icon';
import { ActivityRow } from './ActivityRow';
import { downloadJsonl } from './export-jsonl';

const PAGE = 200;
const SEARCH_DELAY_MS = 250;

export function ActivityScreen() {
  const api = useApi();
  const { run } = useActions();
  const logVersion = useApp((s) => s.logVersion);
  const servers = useApp((s) => s.servers) ?? [];
  const id = useId();
  const [server, setServer] = useState('');
  const [tool, setTool] = useState('');
  const [decision, setDecision] = useState<'' | 'allow' | 'deny'>('');
  const [search, setSearch] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const [entries, setEntries] = useState<AuditEntry[] | undefined>(undefined);

  const query = useMemo<LogQuery>(() => ({
    ...(server && { server }),
    ...(tool.trim() && { tool: tool.trim() }),
    ...(decision && { decision }),
    ...(search.trim() && { search: search.trim() }),
    limit,
  }), [server, tool, decision, search, limit]);

  // Debounced, so typing a search (or a burst of log events) costs one query.
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      void run('queryLog', () => api.queryLog(query)).then((res) => live && res && setEntries(res.slice().reverse()));
    }, SEARCH_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, run, query, logVersion]);

  const exportAll = async () => {
    const all = await run('queryLog', () => api.queryLog({ ...query, limit: 100_000 }));
    if (all) downloadJsonl(all, `countersign-activity-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
  };

  return (
    <div className="activity pad">
      <header className="list-head">
        <h1>Activity</h1>
        <button type="button" className="btn btn-small" onClick={() => void exportAll()}><Icon name="download" />Export JSONL</button>
      </header>
      <form className="filters" role="search" aria-label="Filter activity" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor={`${id}-server`}>Server</label>
          <select id={`${id}-server`} value={server} onChange={(e) => setServer(e.target.value)}>
            <option value="">All servers</option>
            {servers.map((s) => <option key={s.name} value={s.name}>{s.name}</option>)}
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
        <p className="muted" role="status">Loading activity…</p>
      ) : entries.length === 0 ? (
        <p className="muted">No activity matches. Every call Countersign relays, allowed or denied, is recorded here and in <code>audit.jsonl</code>.</p>
      ) : (
        <>
          <p className="muted small" role="status">{entries.length === limit ? `Newest ${limit} entries` : `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`}, newest first.</p>
          <ul className="log-list" aria-label="Audit log">
            {entries.map((e) => <ActivityRow key={e.seq} entry={e} />)}
          </ul>
          {entries.length === limit && <button type="button" className="btn" onClick={() => setLimit(limit + PAGE * 5)}>Show older entries</button>}
        </>
      )}
    </div>
  );
}
