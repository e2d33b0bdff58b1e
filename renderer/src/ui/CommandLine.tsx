// A command line exactly as it will run: each argument in its own box, in order, untruncated, with
// invisible characters shown. Joining with spaces would hide where one argument ends.
import { VisibleText } from './VisibleText';

export function CommandLine({ argv, label }: { argv: string[]; label: string }) {
  return (
    <ol className="argv" aria-label={label}>
      {argv.map((arg, i) => (
        <li key={i} className="argv-item">
          <span className="argv-index" aria-label={`argument ${i}`}>
            {i}
          </span>
          <code className="argv-value">
            {arg === '' ? (
              <span className="mark-ws" title="empty argument">
                (empty)
              </span>
            ) : (
              <VisibleText text={arg} />
            )}
          </code>
        </li>
      ))}
    </ol>
  );
}
