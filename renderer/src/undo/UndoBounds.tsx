// Settings: how much the undo snapshot store keeps (its size and age, and the largest file kept). The
// oldest snapshots go first when a bound is reached, and Activity logs what went.
import { useEffect, useId, useState } from 'react';
import type { Settings } from '../../../shared/api';
import { UNDO_DEFAULTS } from '../../../shared/undo';

type Bounds = Pick<Required<Settings>, 'undoMaxMB' | 'undoMaxDays' | 'undoMaxFileMB'>;

const FIELDS: Array<{ key: keyof Bounds; label: string; max: number }> = [
  { key: 'undoMaxMB', label: 'Keep up to (MB, all snapshots)', max: 1_000_000 },
  { key: 'undoMaxDays', label: 'For (days)', max: 3650 },
  { key: 'undoMaxFileMB', label: 'Largest file kept (MB)', max: 100_000 },
];

const of = (s: Settings | undefined): Bounds => ({
  undoMaxMB: s?.undoMaxMB ?? UNDO_DEFAULTS.maxMB,
  undoMaxDays: s?.undoMaxDays ?? UNDO_DEFAULTS.maxDays,
  undoMaxFileMB: s?.undoMaxFileMB ?? UNDO_DEFAULTS.maxFileMB,
});

export function UndoBounds({ settings, onSave }: { settings: Settings | undefined; onSave(patch: Bounds): void }) {
  const id = useId();
  const saved = of(settings);
  const [text, setText] = useState<Record<keyof Bounds, string>>(() => stringify(saved));
  const key = JSON.stringify(saved);
  useEffect(() => setText(stringify(JSON.parse(key) as Bounds)), [key]);
  const parsed = Object.fromEntries(FIELDS.map((f) => [f.key, Number(text[f.key])])) as Bounds;
  const valid = FIELDS.every((f) => Number.isInteger(parsed[f.key]) && parsed[f.key] >= 1 && parsed[f.key] <= f.max);
  const changed = FIELDS.some((f) => parsed[f.key] !== saved[f.key]);
  return (
    <section className="block" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Undo snapshots</h2>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid && changed) onSave(parsed);
        }}
      >
        {FIELDS.map((f) => (
          <div className="field" key={f.key}>
            <label htmlFor={`${id}-${f.key}`}>{f.label}</label>
            <input
              id={`${id}-${f.key}`}
              type="number"
              min={1}
              max={f.max}
              step={1}
              value={text[f.key]}
              onChange={(e) => setText({ ...text, [f.key]: e.target.value })}
              aria-invalid={!(Number.isInteger(parsed[f.key]) && parsed[f.key] >= 1 && parsed[f.key] <= f.max)}
            />
          </div>
        ))}
        <button type="submit" className="btn btn-primary" disabled={!valid || !changed}>
          Save limits
        </button>
      </form>
      <p className="muted small">
        Before an allowed call changes a file, Countersign keeps what was there, so Activity can undo it. When the store is over its size or age, the oldest
        snapshots go first (Activity says so). A file over the largest size is not kept, and the call&apos;s card says so before you decide.
      </p>
    </section>
  );
}

function stringify(b: Bounds): Record<keyof Bounds, string> {
  return { undoMaxMB: String(b.undoMaxMB), undoMaxDays: String(b.undoMaxDays), undoMaxFileMB: String(b.undoMaxFileMB) };
}
