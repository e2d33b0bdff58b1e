// One changed, new or removed tool: the exact words, parameters and hints that moved.
import type { ToolChangeView } from '../../../shared/api';
import { dateTime } from '../lib/format';
import { VisibleText } from '../ui/VisibleText';
import { AnnotationChanges } from './AnnotationChanges';
import { Findings } from './Findings';
import { SchemaChanges } from './SchemaChanges';

const KIND = { added: 'New tool', changed: 'Changed', removed: 'Removed' } as const;

export function ToolChangeCard({ change, busy, onReview }: { change: ToolChangeView; busy: boolean; onReview(action: 'accept' | 'reject'): void }) {
  const d = change.diff;
  return (
    <li className="change" aria-label={`Change to ${change.name}`}>
      <div className="change-head">
        <code className="tool-name">
          <VisibleText text={change.name} />
        </code>
        <span className={`badge ${change.kind === 'removed' ? 'badge-neutral' : 'badge-warning'}`}>{KIND[change.kind]}</span>
        <span className="muted small">detected {dateTime(change.detectedAt)}</span>
      </div>
      {d.name && (
        <p className="small">
          Name:{' '}
          <code>
            <VisibleText text={String(d.name.from ?? '')} />
          </code>{' '}
          →{' '}
          <code>
            <VisibleText text={String(d.name.to ?? '')} />
          </code>
        </p>
      )}
      {d.title && (
        <p className="small">
          Title: “<VisibleText text={String(d.title.from ?? '')} />” → “<VisibleText text={String(d.title.to ?? '')} />”
        </p>
      )}
      {d.description && (
        <div className="desc-diff">
          <h4>Description</h4>
          {Array.isArray(d.description) ? (
            <p className="word-diff" aria-label="Description changes">
              {d.description.map((p, i) =>
                p.added ? (
                  <ins key={i}>
                    <span className="sr-only">[added: </span>
                    <VisibleText text={p.value} />
                    <span className="sr-only">]</span>
                  </ins>
                ) : p.removed ? (
                  <del key={i}>
                    <span className="sr-only">[removed: </span>
                    <VisibleText text={p.value} />
                    <span className="sr-only">]</span>
                  </del>
                ) : (
                  <VisibleText key={i} text={p.value} />
                ),
              )}
            </p>
          ) : (
            <p className="notice-inline">The description is too large to compare word by word. Check the tool’s definition below.</p>
          )}
        </div>
      )}
      <SchemaChanges title="Input schema" changes={d.schemas?.inputSchema ?? []} />
      <SchemaChanges title="Output schema" changes={d.schemas?.outputSchema ?? []} />
      <AnnotationChanges rows={d.annotations ?? []} />
      <SchemaChanges title="Other annotation fields" changes={d.otherAnnotations ?? []} />
      <Findings findings={change.findings ?? []} />
      <div className="btn-row">
        <button type="button" className="btn btn-approve" disabled={busy} onClick={() => onReview('accept')}>
          Accept changes to {change.name}
        </button>
        <button type="button" className="btn btn-deny" disabled={busy} onClick={() => onReview('reject')}>
          Reject changes to {change.name}
        </button>
      </div>
    </li>
  );
}
