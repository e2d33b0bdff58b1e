// Annotation fields that changed: raw values as sent, the effective value after cautious defaults,
// and whether the change asks for more caution or less.
import type { AnnotationRow } from '../../../shared/definition-diff';
import { VisibleText } from '../ui/VisibleText';

function raw(v: unknown): string {
  return v === undefined ? 'missing' : (JSON.stringify(v) ?? String(v));
}

const DIRECTION = {
  'more-cautious': { text: 'more cautious', cls: 'dir-safe' },
  'less-cautious': { text: 'LESS cautious', cls: 'dir-risk' },
  same: { text: 'same effect', cls: 'muted' },
} as const;

export function AnnotationChanges({ rows }: { rows: AnnotationRow[] }) {
  if (rows.length === 0) return null;
  return (
    <table className="table changes">
      <caption>Annotations</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
          <th scope="col">Effect</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.field}>
            <th scope="row">
              <code>{r.field}</code>
            </th>
            <td>
              <code>
                <VisibleText text={raw(r.before)} />
              </code>
            </td>
            <td>
              <code>
                <VisibleText text={raw(r.after)} />
              </code>
            </td>
            <td>
              {'direction' in r ? (
                <>
                  <code>
                    {String(r.effectiveBefore)} → {String(r.effectiveAfter)}
                  </code>{' '}
                  <span className={DIRECTION[r.direction].cls}>{DIRECTION[r.direction].text}</span>
                </>
              ) : (
                <span className="muted">display only</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
