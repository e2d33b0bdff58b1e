// A later round of a multi round-trip call (2026-07-28): the server asked for input instead of running
// the tool, and the client now retries it with its answers. Shown as text; a URL is never opened.
import type { CallInput } from '../../../shared/api';
import { ArgumentsView } from '../args/ArgumentsView';
import { VisibleText } from '../ui/VisibleText';

const EARLIER: Record<string, string> = {
  person: 'You allowed the first round once, so this round asks you again.',
  session: 'You allowed this tool for the session.',
  rule: 'Your saved rule allowed the first round.',
  policy: 'The policy allowed the first round.',
};

export function InputRound({ input }: { input: CallInput }) {
  return (
    <section aria-label="Input the server asked for" className="detail-section">
      <h3 className="section-title">Round {input.round}: the input the server asked for</h3>
      {input.requested.length > 0 ? (
        <ul className="input-requested">
          {input.requested.map((r) => (
            <li key={r.key}>
              The server asked for{' '}
              <code>
                <VisibleText text={r.key} />
              </code>{' '}
              ({r.method}
              {r.mode === 'url' ? ', open a URL' : ''})
              {r.message && (
                <>
                  : “<VisibleText text={r.message} />”
                </>
              )}
              {r.url && (
                <>
                  {' '}
                  — URL (not opened):{' '}
                  <code>
                    <VisibleText text={r.url} />
                  </code>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Countersign did not see this call's earlier round; the client says it answers one.</p>
      )}
      {input.earlier && EARLIER[input.earlier] && <p className="small">{EARLIER[input.earlier]}</p>}
      <ArgumentsView value={input.supplied ?? null} title="The client answered" />
    </section>
  );
}
