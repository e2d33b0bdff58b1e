// The undo state of one Activity entry: "Undo" while its snapshot is kept and not yet undone, "Undone"
// with a link to the undo's own entry once it was, nothing for an entry that changed no file it could tell.
import type { AuditEntry } from '../../../shared/api';
import type { UndoableCall } from '../../../shared/undo';
import { Icon } from '../ui/Icon';

interface Props {
  entry: AuditEntry;
  /** listUndoable, by snapshot id; undefined until it loaded. */
  undoable: Map<string, UndoableCall> | undefined;
  onUndo(): void;
  /** Shows the undo entry that undid this one. */
  onShow(seq: number): void;
}

export function UndoCell({ entry, undoable, onUndo, onShow }: Props) {
  if (!entry.snapshot || !undoable) return <span className="log-undo" />;
  const call = undoable.get(entry.snapshot);
  if (!call)
    return (
      <span className="log-undo muted small" title="Its snapshot is no longer kept (the store's size or age limit), so it cannot be undone.">
        Snapshot gone
      </span>
    );
  if (call.undoneBy) {
    const seq = undoable.get(call.undoneBy)?.seq;
    return (
      <span className="log-undo undo-done small">
        <Icon name="check" size={13} />
        Undone
        {seq !== undefined && (
          <>
            {' '}
            <a
              href={`#log-${seq}`}
              onClick={(e) => {
                e.preventDefault();
                onShow(seq);
              }}
            >
              by #{seq}
            </a>
          </>
        )}
      </span>
    );
  }
  const label = call.undoOf ? 'Undo this undo: put back what it replaced' : `Undo what #${entry.seq} changed`;
  return (
    <span className="log-undo">
      <button type="button" className="btn btn-small" aria-label={label} title={label} onClick={onUndo}>
        <Icon name="undo" size={13} />
        Undo
      </button>
    </span>
  );
}
