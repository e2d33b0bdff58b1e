// Whether a pending call can be undone once it ran, said before the person decides. The words are the
// engine's (shared/undo.ts undoText); the card cuts them to one line, the detail shows them whole.
import { escapeControl } from '../../../shared/escape';
import { undoText, type UndoAvailability } from '../../../shared/undo';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';

export function UndoNote({ undo, inCard }: { undo: UndoAvailability | undefined; inCard?: boolean }) {
  if (!undo) return null;
  // A path over the size limit is the agent's text: shown with its control characters made visible.
  const text = undoText(undo);
  return (
    <p className={`undo-note undo-note-${undo.kind}${inCard ? ' undo-note-card' : ''}`} title={inCard ? escapeControl(text) : undefined} data-undo={undo.kind}>
      <Icon name="undo" size={13} />
      <span className="undo-note-text">
        <VisibleText text={text} />
      </span>
    </p>
  );
}
