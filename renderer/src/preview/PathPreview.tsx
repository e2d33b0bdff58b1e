// Calls that move or delete a path: what is there now, so a person sees what would be replaced or lost.
// Source and target (or the one path), whether each exists, and their sizes, read by the broker.
import { bytes } from '../lib/format';
import { VisibleText } from '../ui/VisibleText';
import { useFilePreview, type FileState } from './useFilePreview';

/** What is at a path now, in a few words. */
function what(file: FileState): string {
  if (file.state === 'loading') return 'checking…';
  if (file.state === 'unavailable') return file.directory ? 'a folder' : `unknown (${file.why.replace(/\.$/, '')})`;
  if (!file.exists) return 'nothing there';
  return file.size === undefined ? 'a file' : `a file of ${bytes(file.size)}`;
}

const exists = (f: FileState): boolean => (f.state === 'ready' && f.exists) || (f.state === 'unavailable' && f.directory === true);

export function MovePreview({ source, destination }: { source: string; destination: string }) {
  const from = useFilePreview(source);
  const to = useFilePreview(destination);
  const ready = from.state !== 'loading' && to.state !== 'loading';
  return (
    <div className="preview-body">
      <dl className="facts path-facts" aria-label="Move">
        <dt>Moves</dt>
        <dd>
          <code>
            <VisibleText text={source} />
          </code>{' '}
          <span className="muted">({what(from)})</span>
        </dd>
        <dt>To</dt>
        <dd>
          <code>
            <VisibleText text={destination} />
          </code>{' '}
          <span className="muted">({what(to)})</span>
          {ready && exists(to) && <span className="badge badge-warning">The target exists: it may be replaced</span>}
          {ready && to.state === 'ready' && !to.exists && <span className="badge badge-new">New path</span>}
        </dd>
      </dl>
      {ready && from.state === 'ready' && !from.exists && (
        <p className="notice-inline">Nothing exists at the source: the call would fail, or the server means another path.</p>
      )}
    </div>
  );
}

export function DeletePreview({ path }: { path: string }) {
  const file = useFilePreview(path);
  const folder = file.state === 'unavailable' && file.directory;
  return (
    <div className="preview-body">
      <p className="preview-path">
        Deletes{' '}
        <code>
          <VisibleText text={path} />
        </code>{' '}
        <span className="muted">({what(file)})</span>
        {folder && <span className="badge badge-danger">A folder: everything in it goes too</span>}
        {file.state === 'ready' && file.exists && <span className="badge badge-danger">Deletes an existing file</span>}
      </p>
    </div>
  );
}
