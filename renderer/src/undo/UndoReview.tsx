// The confirm step of an undo: every file and what it becomes, conflicts with their three versions, the
// preview's hash, and the one button that applies exactly this preview. With a conflict that button is
// "Restore anyway". Nothing is written until the person presses it (the desktop app asks once more).
import { useEffect, useId, useRef } from 'react';
import type { UndoTarget } from '../../../shared/undo';
import { dateTime } from '../lib/format';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';
import { UndoFileItem } from './UndoFileItem';
import { UndoOutcome } from './UndoOutcome';
import { files, rolesByPath } from './undo-words';
import { useUndoReview } from './useUndoReview';

interface Props {
  target: UndoTarget;
  /** "Undo write_file on fs", "Revert claude-code's session". */
  title: string;
  onClose(): void;
}

export function UndoReview({ target, title, onClose }: Props) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const { preview, error, busy, result, reload, apply } = useUndoReview(target);
  const roles = preview ? rolesByPath(preview.calls) : undefined;
  const acting = preview ? preview.files.filter((f) => f.action !== 'unchanged' && !f.blocked).length : 0;
  return (
    <section
      className="undo-review block block-attention"
      aria-labelledby={`${id}-title`}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !busy) {
          e.preventDefault();
          onClose();
        }
      }}
    >
      <h3 id={`${id}-title`} ref={heading} tabIndex={-1}>
        <VisibleText text={title} />
      </h3>
      {result ? (
        <UndoOutcome result={result} />
      ) : (
        <>
          {!preview && busy && (
            <p className="muted" role="status">
              Looking at the files…
            </p>
          )}
          {preview && (
            <>
              <p className="small">
                Undoes {preview.calls.length} {preview.calls.length === 1 ? 'call' : 'calls'}, newest first:{' '}
                {preview.calls.map((c, i) => (
                  <span key={c.snapshot}>
                    {i > 0 && ', '}
                    <code>
                      <VisibleText text={c.tool} />
                    </code>{' '}
                    on <VisibleText text={c.server} /> at {dateTime(c.time)}
                  </span>
                ))}
                . Nothing is written until you confirm.
              </p>
              <ul className="undo-files" aria-label="Files undo puts back">
                {preview.files.map((f) => (
                  <UndoFileItem key={`${f.path}\n${f.action}`} file={f} roles={roles?.get(f.path)} />
                ))}
              </ul>
              {preview.conflicts > 0 && (
                <p className="undo-conflict" role="alert">
                  <Icon name="danger" size={16} />
                  <span>
                    <strong>
                      {files(preview.conflicts)} changed since the call{preview.calls.length === 1 ? '' : 's'}.
                    </strong>{' '}
                    Someone or something edited {preview.conflicts === 1 ? 'it' : 'them'} after the agent did. Undo would overwrite those edits with the version
                    from before the call. Compare the three versions above first.
                  </span>
                </p>
              )}
              <p className="muted small undo-hash">
                Preview <code title={preview.hash}>{preview.hash.slice(0, 16)}</code>: undo applies exactly this. If a file changes before you confirm, nothing
                is written and you see the new preview. The desktop app asks once more in its own window.
              </p>
            </>
          )}
          {error && (
            <p className="field-error" role="alert">
              <VisibleText text={error} />
            </p>
          )}
        </>
      )}
      <div className="btn-row">
        {!result && preview && acting > 0 && (
          <button
            type="button"
            className={`btn ${preview.conflicts ? 'btn-danger' : 'btn-primary'}`}
            disabled={busy}
            onClick={() => void apply(preview.conflicts > 0)}
          >
            {preview.conflicts ? 'Restore anyway' : `Undo ${files(acting)}`}
          </button>
        )}
        {!result && error && (
          <button type="button" className="btn" disabled={busy} onClick={reload}>
            Look again
          </button>
        )}
        <button type="button" className="btn" disabled={busy && !result} onClick={onClose}>
          {result || !preview || acting === 0 ? 'Close' : 'Cancel'}
        </button>
      </div>
      {!result && preview && acting === 0 && <p role="status">Nothing to undo: every file is already as it was, or cannot be put back.</p>}
    </section>
  );
}
