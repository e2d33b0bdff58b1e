// A string argument: quoted, invisible characters and odd whitespace shown, wrapped rather than cut.
// Long or multi-line strings get their length on a label, so nothing hides past the edge.
import { lineCount } from '../lib/format';
import { LongText } from '../ui/LongText';
import { VisibleText } from '../ui/VisibleText';

const LONG = 80;

export function StringValue({ value }: { value: string }) {
  const lines = lineCount(value);
  const long = value.length > LONG || lines > 1;
  if (!long) {
    return (
      <span className="jv jv-string">
        “<VisibleText text={value} markLeading />”
      </span>
    );
  }
  return (
    <span className="jv jv-string jv-long">
      <span className="jv-meta">
        string · {value.length.toLocaleString('en-US')} characters{lines > 1 ? ` · ${lines.toLocaleString('en-US')} lines` : ''}
      </span>
      <span className="jv-block" tabIndex={0}>
        <LongText text={value} markLeading />
      </span>
    </span>
  );
}
