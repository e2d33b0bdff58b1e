// Each tool as the server last listed it. Every field is the server's claim, shown as data.
import type { UiServer, UiTool } from '../store/normalize';
import { VisibleText } from '../ui/VisibleText';
import { ArgumentsView } from '../args/ArgumentsView';
import { Findings } from './Findings';
import { HintsTable } from './HintsTable';

const STATE = {
  approved: { label: 'Approved definition', cls: 'badge-ok' },
  held: { label: 'Changed: waiting for review', cls: 'badge-warning' },
  unrecorded: { label: 'Not yet recorded', cls: 'badge-neutral' },
} as const;

function ToolCard({ tool, trusted }: { tool: UiTool; trusted: boolean }) {
  const d = tool.definition;
  const st = STATE[tool.state] ?? STATE.unrecorded;
  return (
    <li className="tool">
      <details>
        <summary>
          <code className="tool-name">
            <VisibleText text={d.name} />
          </code>
          {(d.title ?? d.annotations?.title) !== undefined && (
            <span className="supplied-title">
              “<VisibleText text={String(d.title ?? d.annotations?.title)} />” <span className="supplied-note">(server’s title)</span>
            </span>
          )}
          <span className={`badge ${st.cls}`}>{st.label}</span>
          {tool.hints.readOnlyHint && tool.hints.supplied?.readOnlyHint && (
            <span className="badge badge-neutral">{trusted ? 'says read-only' : 'says read-only (not verified)'}</span>
          )}
        </summary>
        <div className="tool-body">
          {d.description ? (
            <p className="tool-desc">
              <VisibleText text={d.description} />
            </p>
          ) : (
            <p className="muted">No description.</p>
          )}
          <Findings findings={tool.findings} />
          <HintsTable definition={d} hints={tool.hints} trusted={trusted} />
          {d.inputSchema !== undefined && <ArgumentsView value={d.inputSchema} title="Input schema" />}
        </div>
      </details>
    </li>
  );
}

export function ToolList({ server }: { server: UiServer }) {
  return (
    <section className="block" aria-labelledby={`tools-${server.name}`}>
      <h3 id={`tools-${server.name}`}>Tools {server.tools.length > 0 && <span className="muted">({server.tools.length})</span>}</h3>
      {server.tools.length === 0 ? (
        <p className="muted">No tools listed yet. They appear once a client connects and the server lists them.</p>
      ) : (
        <ul className="tools">
          {server.tools.map((t) => (
            <ToolCard key={t.definition.name} tool={t} trusted={server.trusted} />
          ))}
        </ul>
      )}
    </section>
  );
}
