// A tool's annotations as the server sent them, next to what Countersign acts on. A missing or
// malformed hint shows its cautious default, so nothing looks safer than it is.
import type { EffectiveHints, ToolDefinition } from '../../../shared/tool';
import { VisibleText } from '../ui/VisibleText';

type Hint = keyof EffectiveHints['supplied'];

export const HINTS: Array<{ key: Hint; label: string; yes: string; no: string }> = [
  { key: 'readOnlyHint', label: 'Read-only', yes: 'only reads', no: 'may change things' },
  { key: 'destructiveHint', label: 'Destructive', yes: 'may delete or overwrite', no: 'only adds' },
  { key: 'idempotentHint', label: 'Idempotent', yes: 'repeating is harmless', no: 'repeating may act again' },
  { key: 'openWorldHint', label: 'Open world', yes: 'reaches outside systems', no: 'closed domain' },
];

function rawValue(def: ToolDefinition, key: string): unknown {
  const ann = def.annotations as unknown;
  return ann && typeof ann === 'object' && !Array.isArray(ann) && Object.hasOwn(ann, key) ? (ann as Record<string, unknown>)[key] : undefined;
}

export function HintsTable({ definition, hints }: { definition: ToolDefinition; hints: EffectiveHints }) {
  return (
    <table className="table hints">
      <caption className="sr-only">Annotations of {definition.name}</caption>
      <thead>
        <tr><th scope="col">Hint</th><th scope="col">The server says</th><th scope="col">Countersign treats it as</th></tr>
      </thead>
      <tbody>
        {HINTS.map((h) => {
          const supplied = hints.supplied?.[h.key] ?? false;
          const raw = rawValue(definition, h.key);
          const eff = hints[h.key];
          return (
            <tr key={h.key} className={supplied ? '' : 'hint-default'}>
              <th scope="row"><code>{h.key}</code> <span className="muted small">{h.label}</span></th>
              <td>
                {supplied ? <code>{String(raw)}</code> : raw === undefined ? <em>missing</em> : <><em>not a boolean:</em> <code><VisibleText text={JSON.stringify(raw) ?? String(raw)} /></code></>}
              </td>
              <td>
                {!supplied && <span className="muted">→ treated as </span>}
                <code>{String(eff)}</code> <span className="muted small">({eff ? h.yes : h.no}{supplied ? '' : ', cautious default'})</span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
