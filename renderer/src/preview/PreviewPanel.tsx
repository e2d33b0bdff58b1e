// Shows what a call would do to files, when its arguments say: a whole-file write or in-place edits.
import { useMemo } from 'react';
import type { PendingCall } from '../../../shared/api';
import { detectPreview } from '../lib/preview-detect';
import { DeletePreview, MovePreview } from './PathPreview';
import { EditPreview } from './EditPreview';
import { WritePreview } from './WritePreview';

export function PreviewPanel({ call }: { call: PendingCall }) {
  const plan = useMemo(() => detectPreview(call.arguments, call.tool), [call.arguments, call.tool]);
  if (plan.kind === 'none') return null;
  const title =
    plan.kind === 'write'
      ? 'of the file write'
      : plan.kind === 'move'
        ? 'of the move'
        : plan.kind === 'delete'
          ? 'of the deletion'
          : `of ${plan.edits.length === 1 ? 'the edit' : `${plan.edits.length} edits`}`;
  return (
    <section className="detail-section preview" aria-label="Preview">
      <h3 className="section-title">Preview {title}</h3>
      {plan.kind === 'write' && <WritePreview path={plan.path} content={plan.content} />}
      {plan.kind === 'edit' && <EditPreview path={plan.path} edits={plan.edits} />}
      {plan.kind === 'move' && <MovePreview source={plan.source} destination={plan.destination} />}
      {plan.kind === 'delete' && <DeletePreview path={plan.path} />}
    </section>
  );
}
