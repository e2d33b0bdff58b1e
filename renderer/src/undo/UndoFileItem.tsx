// One file of an undo preview: its path, what undo makes of it, why it is left alone (blocked), and
// whether it changed since the call (a conflict, shown with its three versions).
import type { UndoFilePlan } from '../../../shared/undo';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';
import { FileVersions } from './FileVersions';
import { actionWords } from './undo-words';

export function UndoFileItem({ file, roles }: { file: UndoFilePlan; roles: Set<string> | undefined }) {
  return (
    <li className={`undo-file${file.conflict ? ' undo-file-conflict' : ''}`} data-action={file.action}>
      <p className="undo-file-head">
        <code className="undo-path">
          <VisibleText text={file.path} />
        </code>
        <span className="undo-action">
          {file.blocked ? 'left as it is' : actionWords(file, roles)}
          {file.from && !file.blocked && (
            <>
              {' '}
              from <VisibleText text={file.from} />
            </>
          )}
        </span>
      </p>
      {file.blocked && (
        <p className="field-error">
          <VisibleText text={file.blocked} />
        </p>
      )}
      {file.conflict && (
        <p className="undo-conflict-line">
          <Icon name="warning" size={14} /> <strong>Changed since the call.</strong> <VisibleText text={file.conflict} /> Undo overwrites what is there now.
        </p>
      )}
      {file.action !== 'unchanged' && !file.blocked && <FileVersions file={file} />}
    </li>
  );
}
