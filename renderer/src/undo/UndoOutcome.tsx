// What an applied undo did, file by file; a file it could not write says why.
import type { UndoResult } from '../../../shared/undo';
import { VisibleText } from '../ui/VisibleText';
import { files } from './undo-words';

export function UndoOutcome({ result }: { result: UndoResult }) {
  const done = result.files.filter((f) => f.done);
  const failed = result.files.filter((f) => !f.done);
  return (
    <div role="status">
      <p>
        <strong>Undone: {files(done.length)} put back.</strong> This undo is in Activity and can itself be undone.
      </p>
      {failed.length > 0 && (
        <ul className="undo-failed" aria-label="Not put back">
          {failed.map((f) => (
            <li key={f.path} className="field-error">
              <code>
                <VisibleText text={f.path} />
              </code>
              : <VisibleText text={f.error ?? 'not written'} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
