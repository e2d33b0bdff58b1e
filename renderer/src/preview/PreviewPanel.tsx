// Shows what a call would do to files, when its arguments say: a whole-file write or in-place edits.
import { useMemo } from 'react';
import type { PendingCall } from '../../../shared/api';
import { detectPreview } from '../lib/preview-detect';
import { EditPreview } from './EditPreview';
import { WritePreview } from './WritePreview';

export function PreviewPanel({ call }: { call: PendingCall }) {
  const plan = useMemo(() => detectPreview(call.arguments), [call.arguments]);
  if (plan.kind === 'none') return null;
  return (
    <section className="detail-section preview" aria-label="Preview">
      <h3 className="section-title">Preview {plan.kind === 'write' ? 'of the file write' : `of ${plan.edits.length === 1 ? 'the edit' : `${plan.edits.length} edits`}`}</h3>
      {plan.kind === 'write' ? <WritePreview path={plan.path} content={plan.content} /> : <EditPreview path={plan.path} edits={plan.edits} />}
    </section>
  );
}
