// Adds one server: a local command (one argument per line, so spaces inside an argument are kept) or
// a URL. Env and header values go to the broker and are never shown again.
import { useId, useState, type ChangeEvent, type FormEvent } from 'react';
import type { ServerConfig } from '../../../shared/api';
import type { LimitsProfile } from '../../../shared/limits';
import { useApi, useActions } from '../store/context';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function pairs(text: string, sep: '=' | ':'): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf(sep);
    if (at <= 0) return `“${line.trim()}” needs the form NAME${sep}value.`;
    out[line.slice(0, at).trim()] = line.slice(at + 1).replace(/^ /, '');
  }
  return out;
}

/** The limits the form asks for; undefined when none, a sentence when a folder is not absolute. */
function limitsOf(noNetwork: boolean, read: string, write: string): LimitsProfile | undefined | string {
  const lines = (t: string) =>
    t
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  const r = lines(read);
  const w = lines(write);
  const bad = [...r, ...w].find((p) => !p.startsWith('/'));
  if (bad) return `“${bad}” is not an absolute folder (it must start with /).`;
  if (!noNetwork && !r.length && !w.length) return undefined;
  return { network: noNetwork ? 'none' : 'unrestricted', filesystem: r.length || w.length ? { read: r, write: w } : 'host', passEnv: [] };
}

export function AddServerForm({ onAdded }: { onAdded?(name: string): void }) {
  const api = useApi();
  const { run, refreshServers } = useActions();
  const id = useId();
  const [kind, setKind] = useState<'command' | 'url'>('command');
  const [f, setF] = useState({ name: '', command: '', args: '', env: '', cwd: '', url: '', headers: '', read: '', write: '' });
  const [noNetwork, setNoNetwork] = useState(false);
  const [error, setError] = useState('');
  const set = (k: keyof typeof f) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setF({ ...f, [k]: e.target.value });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!NAME.test(f.name)) return setError('The name may use letters, digits, dot, dash and underscore (up to 64), starting with a letter or digit.');
    let config: ServerConfig;
    if (kind === 'command') {
      if (!f.command.trim()) return setError('Enter the command to run.');
      const env = pairs(f.env, '=');
      if (typeof env === 'string') return setError(env);
      const args = f.args.split('\n').filter((a, i, all) => a !== '' || i < all.length - 1);
      const limits = limitsOf(noNetwork, f.read, f.write);
      if (typeof limits === 'string') return setError(limits);
      config = {
        command: f.command.trim(),
        ...(args.length && { args }),
        ...(Object.keys(env).length && { env }),
        ...(f.cwd.trim() && { cwd: f.cwd.trim() }),
        ...(limits && { limits }),
      };
    } else {
      const headers = pairs(f.headers, ':');
      if (typeof headers === 'string') return setError(headers);
      if (!/^https?:\/\//.test(f.url.trim())) return setError('Enter an http:// or https:// URL.');
      config = { url: f.url.trim(), ...(Object.keys(headers).length && { headers }) };
    }
    setError('');
    const ok = await run('addServer', async () => (await api.addServer(f.name, config), true));
    if (!ok) return;
    await refreshServers();
    onAdded?.(f.name);
    setF({ name: '', command: '', args: '', env: '', cwd: '', url: '', headers: '', read: '', write: '' });
    setNoNetwork(false);
  };

  return (
    <form className="form" onSubmit={(e) => void submit(e)} aria-label="Add a server">
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input id={`${id}-name`} value={f.name} onChange={set('name')} placeholder="fs" autoComplete="off" />
      </div>
      <fieldset className="field radio-row">
        <legend>Kind</legend>
        <label>
          <input type="radio" name={`${id}-kind`} checked={kind === 'command'} onChange={() => setKind('command')} /> Local command
        </label>
        <label>
          <input type="radio" name={`${id}-kind`} checked={kind === 'url'} onChange={() => setKind('url')} /> Remote URL
        </label>
      </fieldset>
      {kind === 'command' ? (
        <>
          <div className="field">
            <label htmlFor={`${id}-cmd`}>Command</label>
            <input id={`${id}-cmd`} value={f.command} onChange={set('command')} placeholder="npx" spellCheck={false} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-args`}>Arguments, one per line</label>
            <textarea
              id={`${id}-args`}
              rows={3}
              value={f.args}
              onChange={set('args')}
              spellCheck={false}
              placeholder={'-y\n@modelcontextprotocol/server-filesystem\n/home/me/projects'}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-env`}>Environment, NAME=value per line (values are stored, never shown)</label>
            <textarea id={`${id}-env`} rows={2} value={f.env} onChange={set('env')} spellCheck={false} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-cwd`}>Working folder (optional)</label>
            <input id={`${id}-cwd`} value={f.cwd} onChange={set('cwd')} spellCheck={false} />
          </div>
          <fieldset className="field">
            <legend>Limits (optional; change them later on its page)</legend>
            <label>
              <input type="checkbox" checked={noNetwork} onChange={(e) => setNoNetwork(e.target.checked)} /> No network
            </label>
            <label htmlFor={`${id}-read`}>Read-only folders, one per line</label>
            <textarea id={`${id}-read`} rows={2} value={f.read} onChange={set('read')} spellCheck={false} />
            <label htmlFor={`${id}-write`}>Writable folders, one per line (with either list, nothing else of your home is visible)</label>
            <textarea id={`${id}-write`} rows={2} value={f.write} onChange={set('write')} spellCheck={false} />
          </fieldset>
        </>
      ) : (
        <>
          <div className="field">
            <label htmlFor={`${id}-url`}>URL</label>
            <input id={`${id}-url`} value={f.url} onChange={set('url')} placeholder="https://example.com/mcp" spellCheck={false} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-headers`}>Headers, Name: value per line (values are stored, never shown)</label>
            <textarea id={`${id}-headers`} rows={2} value={f.headers} onChange={set('headers')} spellCheck={false} />
          </div>
        </>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-primary">
        Add server
      </button>
      <p className="muted small">New servers start untrusted: every call asks, and the command needs your consent before it first runs.</p>
    </form>
  );
}
