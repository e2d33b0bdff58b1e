// Tool definitions that changed since the person approved them. Until reviewed, a changed tool's
// calls are refused; accepting records the new definition, rejecting keeps refusing it.
import { useState } from 'react';
import type { ReviewAction, ReviewedTool, ServerChanges } from '../../../shared/api';
import { useApi, useActions } from '../store/context';
import { VisibleText } from '../ui/VisibleText';
import { ToolChangeCard } from './ToolChangeCard';

const VERSION_KIND = { added: 'now reported', removed: 'no longer reported', upgrade: 'upgrade', downgrade: 'DOWNGRADE', changed: 'changed' } as const;

export function ChangeReview({ changes }: { changes: ServerChanges }) {
  const api = useApi();
  const { run, refreshChanges, refreshServers } = useActions();
  const [busy, setBusy] = useState(false);
  // Accepting names each change by the hash of what is on screen; one that moved meanwhile is refused.
  const review = async (action: ReviewAction, tools?: ReviewedTool[], identityHash?: string) => {
    setBusy(true);
    await run('reviewChanges', () => (tools ? api.reviewChanges(changes.server, action, tools, identityHash) : api.reviewChanges(changes.server, action)));
    await Promise.all([refreshChanges(), refreshServers()]);
    setBusy(false);
  };
  const v = changes.version;
  return (
    <section className="block block-attention review" aria-labelledby={`review-${changes.server}`}>
      <h3 id={`review-${changes.server}`}>Changes waiting for your review</h3>
      <p>
        The server changed {changes.tools.length === 1 ? 'a tool' : `${changes.tools.length} tools`} since you approved it. Calls to a changed tool are refused
        until you accept.
      </p>
      {v && (
        <p>
          Version:{' '}
          <code>
            <VisibleText text={v.from ?? 'none'} />
          </code>{' '}
          →{' '}
          <code>
            <VisibleText text={v.to ?? 'none'} />
          </code>{' '}
          <span className={v.kind === 'downgrade' ? 'dir-risk' : 'muted'}>({VERSION_KIND[v.kind]})</span>
        </p>
      )}
      <div className="btn-row">
        <button
          type="button"
          className="btn btn-approve"
          disabled={busy}
          onClick={() =>
            void review(
              'accept',
              changes.tools.map((t) => ({ name: t.name, hash: t.hash })),
              changes.identityHash,
            )
          }
        >
          Accept all changes
        </button>
        <button type="button" className="btn btn-deny" disabled={busy} onClick={() => void review('reject')}>
          Reject all changes
        </button>
      </div>
      <ul className="changes-list">
        {changes.tools.map((t) => (
          <ToolChangeCard
            key={t.name}
            change={t}
            busy={busy}
            onReview={(a) => void review(a, [a === 'accept' ? { name: t.name, hash: t.hash } : { name: t.name }])}
          />
        ))}
      </ul>
    </section>
  );
}
