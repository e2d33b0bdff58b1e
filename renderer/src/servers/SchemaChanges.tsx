// Differences between two JSON values, path by path (input/output schemas, unknown annotations).
import type { PathChange } from '../../../shared/definition-diff';
import { VisibleText } from '../ui/VisibleText';

function show(v: unknown): string {
  return v === undefined ? '' : (JSON.stringify(v, null, 1) ?? String(v));
}

export function SchemaChanges({ title, changes }: { title: string; changes: PathChange[] }) {
  if (changes.length === 0) return null;
  return (
    <table className="table changes">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Path</th>
          <th scope="col">Change</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c, i) => (
          <tr key={i}>
            <th scope="row">
              <code>
                <VisibleText text={c.path || '(whole value)'} />
              </code>
            </th>
            <td>
              <span className={`chg chg-${c.kind}`}>{c.kind}</span>
            </td>
            <td>
              <pre className="cell-pre" tabIndex={0}>
                <VisibleText text={show(c.before)} />
              </pre>
            </td>
            <td>
              <pre className="cell-pre" tabIndex={0}>
                <VisibleText text={show(c.after)} />
              </pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
