// The versions of one file an undo works with: before the call (what undo puts back), after it (what
// the call left) and now. A file changed since the call shows all three, as the diff between any two;
// otherwise the diff from now to what undo writes. Diffs are the preview's own (DiffView).
import { useState } from 'react';
import type { UndoFilePlan, UndoVersion } from '../../../shared/undo';
import { DiffView } from '../preview/DiffView';
import { VisibleText } from '../ui/VisibleText';
import { versionWords } from './undo-words';

type Pair = 'since' | 'undo' | 'call';

const PAIRS: Record<Pair, { label: string; from: 'after' | 'now' | 'becomes'; to: 'after' | 'now' | 'becomes' }> = {
  since: { label: 'Changed since the call', from: 'after', to: 'now' },
  undo: { label: 'What undo writes', from: 'now', to: 'becomes' },
  call: { label: 'What the call did', from: 'becomes', to: 'after' },
};

const NAME = { becomes: 'Before the call', after: 'After the call', now: 'Now' } as const;

function Version({ name, v }: { name: string; v: UndoVersion | undefined }) {
  const words = v ? versionWords(v) : 'not seen: Countersign did not see the call end';
  return (
    <>
      <dt>{name}</dt>
      <dd>{words ?? `text, ${v!.text!.split('\n').length} lines`}</dd>
    </>
  );
}

/** Text of one version, or an empty text for "did not exist" (a diff then shows it all added or removed). */
function textOf(v: UndoVersion | undefined): string | undefined {
  if (!v) return undefined;
  if (v.text !== undefined) return v.text;
  return v.noText === 'missing' ? '' : undefined;
}

export function FileVersions({ file }: { file: UndoFilePlan }) {
  const [pair, setPair] = useState<Pair>(file.conflict ? 'since' : 'undo');
  const three = Boolean(file.conflict);
  const shown = PAIRS[pair];
  const from = textOf(file[shown.from]);
  const to = textOf(file[shown.to]);
  return (
    <div className="undo-versions">
      {three && (
        <dl className="facts undo-three" aria-label={`Three versions of ${file.path}`}>
          <Version name={NAME.becomes} v={file.becomes} />
          <Version name={NAME.after} v={file.after} />
          <Version name={NAME.now} v={file.now} />
        </dl>
      )}
      {three && (
        <div className="segmented" role="group" aria-label="Compare">
          {(Object.keys(PAIRS) as Pair[]).map((p) => (
            <button key={p} type="button" aria-pressed={pair === p} onClick={() => setPair(p)}>
              {PAIRS[p].label}
            </button>
          ))}
        </div>
      )}
      {from !== undefined && to !== undefined ? (
        <DiffView before={from} after={to} beforeLabel={NAME[shown.from]} afterLabel={shown.to === 'becomes' ? 'After undo' : NAME[shown.to]} />
      ) : (
        !three && (
          <p className="muted small">
            Now: <VisibleText text={versionWords(file.now) ?? 'text'} />. After undo: <VisibleText text={versionWords(file.becomes) ?? 'text'} />.
          </p>
        )
      )}
    </div>
  );
}
