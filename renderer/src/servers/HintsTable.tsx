// A tool's annotations as the server sent them, next to what Countersign acts on, read by the same
// shared model as the queue (hintStanding): a missing hint takes its cautious default, and an
// untrusted server's claim counts only where it adds caution. Nothing looks safer than it is.
import { hintStanding, type HintName } from '../../../shared/call-warnings';
import type { EffectiveHints, ToolDefinition } from '../../../shared/tool';
import { VisibleText } from '../ui/VisibleText';

export const HINTS: Array<{ key: HintName; label: string; yes: string; no: string }> = [
  { key: 'readOnlyHint', label: 'Read-only', yes: 'only reads', no: 'may change things' },
  { key: 'destructiveHint', label: 'Destructive', yes: 'may delete or overwrite', no: 'only adds' },
  { key: 'idempotentHint', label: 'Idempotent', yes: 'repeating is harmless', no: 'repeating may act again' },
  { key: 'openWorldHint', label: 'Open world', yes: 'reaches outside systems', no: 'closed domain' },
];

const BASIS = { claim: '', default: ', cautious default', ignored: ', cautious: not verified, because you have not trusted this server' } as const;

function rawValue(def: ToolDefinition, key: string): unknown {
  const ann = def.annotations as unknown;
  return ann && typeof ann === 'object' && !Array.isArray(ann) && Object.hasOwn(ann, key) ? (ann as Record<string, unknown>)[key] : undefined;
}

export function HintsTable({ definition, hints, trusted }: { definition: ToolDefinition; hints: EffectiveHints; trusted: boolean }) {
  return (
    <table className="table hints">
      <caption className="sr-only">Annotations of {definition.name}</caption>
      <thead>
        <tr>
          <th scope="col">Hint</th>
          <th scope="col">The server says</th>
          <th scope="col">Countersign treats it as</th>
        </tr>
      </thead>
      <tbody>
        {HINTS.map((h) => {
          const supplied = hints.supplied?.[h.key] ?? false;
          const raw = rawValue(definition, h.key);
          const standing = hintStanding(hints, h.key, trusted);
          return (
            <tr key={h.key} className={standing.basis === 'claim' ? '' : 'hint-default'}>
              <th scope="row">
                <code>{h.key}</code> <span className="muted small">{h.label}</span>
              </th>
              <td>
                {supplied ? (
                  <code>{String(raw)}</code>
                ) : raw === undefined ? (
                  <em>missing</em>
                ) : (
                  <>
                    <em>not a boolean:</em>{' '}
                    <code>
                      <VisibleText text={JSON.stringify(raw) ?? String(raw)} />
                    </code>
                  </>
                )}
              </td>
              <td>
                {standing.basis !== 'claim' && <span className="muted">→ treated as </span>}
                <code>{String(standing.value)}</code>{' '}
                <span className="muted small">
                  ({standing.value ? h.yes : h.no}
                  {BASIS[standing.basis]})
                </span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
