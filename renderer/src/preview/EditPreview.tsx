// A call that edits text in place (old/new pairs): one diff per edit, and whether the old text is
// really in the file now.
import type { EditPair } from '../lib/preview-detect';
import { VisibleText } from '../ui/VisibleText';
import { DiffView } from './DiffView';
import { useFilePreview, type FileState } from './useFilePreview';

function whereFound(file: FileState, oldText: string): string | undefined {
  if (file.state !== 'ready' || !file.exists || file.content === undefined) return undefined;
  const at = file.content.indexOf(oldText);
  if (at === -1) return 'This text is not in the current file: the edit may fail, or the file changed.';
  const line = file.content.slice(0, at).split('\n').length;
  const again = file.content.indexOf(oldText, at + 1) !== -1;
  return `Found at line ${line} of the current file${again ? ' (and again later: more than one match)' : ''}.`;
}

export function EditPreview({ path, edits }: { path?: string; edits: EditPair[] }) {
  const file = useFilePreview(path);
  return (
    <div className="preview-body">
      {path && (
        <p className="preview-path">
          Edits{' '}
          <code>
            <VisibleText text={path} />
          </code>
          {file.state === 'ready' && !file.exists && <span className="badge badge-warning">File does not exist</span>}
        </p>
      )}
      {edits.map((e, i) => {
        const found = whereFound(file, e.oldText);
        return (
          <div className="edit" key={i}>
            <h4 className="edit-title">
              Edit {i + 1} of {edits.length}
            </h4>
            {found && <p className="muted small">{found}</p>}
            <DiffView before={e.oldText} after={e.newText} beforeLabel="Old text" afterLabel="New text" />
          </div>
        );
      })}
    </div>
  );
}
