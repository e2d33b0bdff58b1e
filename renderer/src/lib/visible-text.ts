// Splits server text into plain runs and marked runs, so invisible characters, control characters and
// suspicious whitespace show up on screen instead of hiding or reordering what a person reads.
import { escapeControl } from '../../../shared/escape';
import { invisibleSource, ODD_SPACE } from '../../../shared/text/invisible';

export type Segment = { kind: 'text'; text: string } | { kind: 'mark'; text: string; title: string; cls: 'ctl' | 'ws' };

// Invisible and control characters (the one set, shared/text/invisible.ts; \t and \n are laid out, not
// hidden), spaces other than U+0020, tabs, runs of 2+ spaces after text, spaces before a line end, and 3+
// newlines in a row. \r is a control: it can overwrite a line.
const PATTERN = new RegExp(`(${invisibleSource({ keepNewlines: true })})|(${ODD_SPACE})|(\\t)|((?<=[^\\s]) {2,}| +(?=\\n|$))|(\\n{3,})`, 'gu');

function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `leading`: also mark the spaces a value starts with (an argument padded so its real text sits out of
 * view). Not for diffs and code, where leading spaces are indentation.
 */
export function segmentText(input: string, opts: { leading?: boolean } = {}): Segment[] {
  const lead = opts.leading ? /^ +/.exec(input)?.[0] : undefined;
  if (lead) {
    return [{ kind: 'mark', cls: 'ws', text: '·'.repeat(lead.length), title: `${lead.length} leading spaces` }, ...segmentText(input.slice(lead.length))];
  }
  const out: Segment[] = [];
  let last = 0;
  const push = (text: string) => {
    // escapeControl again: anything this pattern missed is still made visible.
    if (text) out.push({ kind: 'text', text: escapeControl(text, { keepNewlines: true }) });
  };
  for (const m of input.matchAll(PATTERN)) {
    const at = m.index ?? 0;
    push(input.slice(last, at));
    const [all, ctl, odd, tab, spaces, newlines] = m;
    if (ctl) out.push({ kind: 'mark', cls: 'ctl', text: escapeControl(ctl), title: `${codePoint(ctl)}: invisible or control character` });
    else if (odd)
      out.push({ kind: 'mark', cls: 'ctl', text: `\\u${(odd.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`, title: `${codePoint(odd)}: unusual space` });
    else if (tab) out.push({ kind: 'mark', cls: 'ws', text: '→\t', title: 'tab' });
    else if (spaces) out.push({ kind: 'mark', cls: 'ws', text: '·'.repeat(spaces.length), title: `${spaces.length} spaces` });
    else if (newlines) {
      out.push({ kind: 'mark', cls: 'ws', text: `↵ ${newlines.length - 1} blank lines`, title: `${newlines.length - 1} blank lines` });
      out.push({ kind: 'text', text: newlines });
    }
    last = at + all.length;
  }
  push(input.slice(last));
  return out;
}

/** Whether the text has anything segmentText would mark. */
const ANY_MARK = new RegExp(PATTERN.source, 'u');
export function hasMarks(input: string): boolean {
  return ANY_MARK.test(input);
}
