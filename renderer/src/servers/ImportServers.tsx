// Paste the `mcpServers` object from Claude Desktop, Cursor or VS Code; each entry becomes an
// untrusted server. Accepts the whole file too.
import { useId, useState, type FormEvent } from 'react';
import { useApi, useActions } from '../store/context';

function parse(text: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `That is not valid JSON: ${(err as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'Expected a JSON object.';
  const inner = (value as { mcpServers?: unknown }).mcpServers;
  if (inner !== undefined) {
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return '"mcpServers" should be an object.';
    return inner as Record<string, unknown>;
  }
  return value as Record<string, unknown>;
}

export function ImportServers() {
  const api = useApi();
  const { run, refreshServers } = useActions();
  const id = useId();
  const [text, setText] = useState('');
  const [result, setResult] = useState<string[]>([]);
  const [error, setError] = useState('');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parse(text);
    if (typeof parsed === 'string') {
      setError(parsed);
      return;
    }
    setError('');
    const res = await run('importServers', () => api.importServers(parsed));
    if (!res) return;
    setResult([
      res.added.length ? `Added (untrusted): ${res.added.join(', ')}.` : 'Nothing was added.',
      ...res.skipped.map((s) => `Skipped ${s.name}: ${s.why}`),
    ]);
    if (res.added.length) setText('');
    await refreshServers();
  };

  return (
    <form className="form" onSubmit={(e) => void submit(e)}>
      <div className="field">
        <label htmlFor={id}>
          Paste an <code>mcpServers</code> JSON object
        </label>
        <textarea
          id={id}
          rows={6}
          spellCheck={false}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={'{ "mcpServers": { "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/projects"] } } }'}
        />
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-primary" disabled={!text.trim()}>
        Import servers
      </button>
      {result.length > 0 && (
        <ul className="result-list" role="status">
          {result.map((r, i) => (
            <li key={i}>{r}</li>
          ))}
        </ul>
      )}
    </form>
  );
}
