// A call that writes a whole file: a diff against the file on disk, or "new file" with its content.
import { lineCount } from '../lib/format';
import { VisibleText } from '../ui/VisibleText';
import { DiffView } from './DiffView';
import { TextBlock } from './TextBlock';
import { useFilePreview } from './useFilePreview';

export function WritePreview({ path, content }: { path: string; content: string }) {
  const file = useFilePreview(path);
  const size = `${content.length.toLocaleString('en-US')} characters, ${lineCount(content).toLocaleString('en-US')} lines`;
  return (
    <div className="preview-body">
      <p className="preview-path">
        Writes{' '}
        <code>
          <VisibleText text={path} />
        </code>
        {file.state === 'ready' && !file.exists && <span className="badge badge-new">New file</span>}
        {file.state === 'ready' && file.exists && <span className="badge badge-warning">Overwrites an existing file</span>}
      </p>
      {file.state === 'loading' && (
        <p className="muted" role="status">
          Reading the current file…
        </p>
      )}
      {file.state === 'unavailable' && (
        <>
          <p className="notice-inline">
            Preview unavailable: {file.why}. The proposed content ({size}) is shown in full.
          </p>
          <TextBlock text={content} label="Proposed content" />
        </>
      )}
      {file.state === 'ready' && !file.exists && (
        <>
          <p className="muted">New file: nothing exists at this path yet. Its content ({size}):</p>
          <TextBlock text={content} label="New file content" />
        </>
      )}
      {file.state === 'ready' && file.exists && (file.tooLarge || file.binary || file.content === undefined) && (
        <>
          <p className="notice-inline">
            {file.binary ? 'The current file is binary' : file.tooLarge ? 'The current file is too large to compare' : 'The current content was not available'};
            it would be replaced by this content ({size}):
          </p>
          <TextBlock text={content} label="Proposed content" />
        </>
      )}
      {file.state === 'ready' && file.exists && !file.tooLarge && !file.binary && file.content !== undefined && (
        <DiffView before={file.content} after={content} beforeLabel="Current file" afterLabel="Proposed" />
      )}
    </div>
  );
}
