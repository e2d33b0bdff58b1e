// The confirm step before Countersign writes a client's config: what happens to each server, and the
// diff of each file. Nothing is written until the person confirms (the desktop app asks once more).
import { useEffect, useRef } from 'react';
import type { UnwrapPreview, WrapEntryPlan, WrapPreview } from '../../../shared/clients';
import { VisibleText } from '../ui/VisibleText';
import { UnifiedDiff } from './UnifiedDiff';

export type Review = { kind: 'wrap'; preview: WrapPreview } | { kind: 'unwrap'; preview: UnwrapPreview };

const ACTION: Record<WrapEntryPlan['action'], (server: string) => string> = {
  add: (s) => `added to Countersign as “${s}”, untrusted`,
  reuse: (s) => `uses Countersign’s “${s}” (the same server)`,
  update: (s) => `rewritten to start Countersign’s “${s}” with the absolute command`,
  already: (s) => `already goes through Countersign (“${s}”)`,
  refuse: () => 'left alone',
  skip: () => 'left alone',
};

function WrapPlan({ preview }: { preview: WrapPreview }) {
  return (
    <>
      {preview.files.map((f) => (
        <div key={f.path} className="client-file">
          <p className="client-file-path">
            <code>
              <VisibleText text={f.path} />
            </code>
          </p>
          {f.error && (
            <p className="field-error">
              Countersign cannot read this file, so it leaves it alone: <VisibleText text={f.error} />
            </p>
          )}
          {f.readOnly && (
            <p className="field-error">
              <VisibleText text={f.readOnly} />
            </p>
          )}
          <ul className="client-plan">
            {f.entries.map((e) => (
              <li key={`${e.group ?? ''}/${e.entry}`}>
                <strong>
                  <VisibleText text={e.entry} />
                </strong>
                {e.group && (
                  <span className="muted">
                    {' '}
                    (<VisibleText text={e.group} />)
                  </span>
                )}
                : {ACTION[e.action](e.server ?? '')}
                {(e.reason || e.note) && (
                  <span className="muted">
                    : <VisibleText text={e.reason ?? e.note ?? ''} />
                  </span>
                )}
              </li>
            ))}
          </ul>
          {f.diff && f.lineEnds && <p className="muted small">{lineEndsNote(f.lineEnds)}</p>}
          {f.diff && <UnifiedDiff diff={f.diff} label={`Changes to ${f.path}`} />}
        </div>
      ))}
    </>
  );
}

const lineEndsNote = (ends: 'crlf' | 'mixed') => `Its lines end with ${ends === 'crlf' ? 'CRLF' : 'a mix of CRLF and LF'}; the file keeps them.`;

function UnwrapPlan({ preview }: { preview: UnwrapPreview }) {
  const how = {
    exact: 'back to its exact bytes from before the wrap',
    entries: 'edited since the wrap: only Countersign’s entries are put back, your edits stay',
    missing: 'the file is gone: nothing to restore',
  } as const;
  return (
    <>
      {preview.files.map((f) => (
        <div key={f.path} className="client-file">
          <p className="client-file-path">
            <code>
              <VisibleText text={f.path} />
            </code>
            : {how[f.how]}
          </p>
          <ul className="client-plan">
            {f.entries.map((e) => (
              <li key={`${e.group ?? ''}/${e.entry}`}>
                <strong>
                  <VisibleText text={e.entry} />
                </strong>
                :{' '}
                {e.outcome === 'restored' ? (
                  'restored'
                ) : (
                  <>
                    kept as it is (<VisibleText text={e.why ?? ''} />)
                  </>
                )}
              </li>
            ))}
          </ul>
          {f.diff && <UnifiedDiff diff={f.diff} label={`Changes to ${f.path}`} />}
        </div>
      ))}
    </>
  );
}

interface Props {
  clientName: string;
  review: Review;
  busy: boolean;
  onConfirm(): void;
  onCancel(): void;
}

export function ClientReview({ clientName, review, busy, onConfirm, onCancel }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const changes = review.kind === 'wrap' ? review.preview.changes : review.preview.files.some((f) => f.diff) ? 1 : 0;
  return (
    <section
      className="client-review block block-attention"
      aria-labelledby={`review-${review.preview.client}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !busy) {
          e.preventDefault();
          onCancel();
        }
      }}
    >
      <h3 id={`review-${review.preview.client}`} ref={heading} tabIndex={-1}>
        {review.kind === 'wrap' ? `Review: protect ${clientName}’s servers` : `Review: put ${clientName}’s config back`}
      </h3>
      {review.kind === 'wrap' ? (
        <p className="small">
          Nothing is written until you confirm. A backup of each file is kept. New servers start untrusted, and each waits for you to approve its command before
          it runs.
        </p>
      ) : (
        <p className="small">Nothing is written until you confirm. Your file as it is now is backed up first. Countersign keeps the servers it added.</p>
      )}
      {review.kind === 'wrap' ? <WrapPlan preview={review.preview} /> : <UnwrapPlan preview={review.preview} />}
      {!changes && <p role="status">Nothing to change.</p>}
      <div className="btn-row">
        {changes > 0 && (
          <button type="button" className="btn btn-primary" disabled={busy} onClick={onConfirm}>
            {review.kind === 'wrap' ? 'Confirm and write' : 'Confirm and restore'}
          </button>
        )}
        <button type="button" className="btn" disabled={busy} onClick={onCancel}>
          {changes ? 'Cancel' : 'Close'}
        </button>
      </div>
    </section>
  );
}
