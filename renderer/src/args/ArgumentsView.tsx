// The call's full arguments, as a tree or as raw JSON. Nothing is cut: long values wrap and say how long
// they are, and anything that looks like a credential is listed at the top.
import { useMemo, useState } from 'react';
import { findSecrets } from '../../../shared/secrets';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';
import { JsonTree } from './JsonTree';
import { LongText } from '../ui/LongText';

export function ArgumentsView({ value, flagged, title = 'Arguments' }: { value: unknown; flagged?: boolean; title?: string }) {
  const [mode, setMode] = useState<'tree' | 'raw'>('tree');
  // Stringifying a large argument costs tens of ms: only when the raw view is open.
  const raw = useMemo(() => (mode === 'raw' ? (JSON.stringify(value, null, 2) ?? 'undefined') : ''), [value, mode]);
  const secrets = useMemo(() => findSecrets(value), [value]);
  return (
    <section className="detail-section args" aria-label={title}>
      <div className="section-head">
        <h3 className="section-title">{title}</h3>
        <span className="muted small">
          {[mode === 'raw' && `${raw.length.toLocaleString('en-US')} characters of JSON`, flagged && 'shown in full: treated as able to change data']
            .filter(Boolean)
            .join(' · ')}
        </span>
        <div className="segmented" role="group" aria-label="Arguments view">
          <button type="button" aria-pressed={mode === 'tree'} onClick={() => setMode('tree')}>
            Tree
          </button>
          <button type="button" aria-pressed={mode === 'raw'} onClick={() => setMode('raw')}>
            Raw
          </button>
        </div>
      </div>
      {secrets.length > 0 && (
        <div className="secrets-note" role="note">
          <Icon name="key" />
          <div>
            <strong>{secrets.length === 1 ? '1 value looks like a secret' : `${secrets.length} values look like secrets`}</strong>
            <ul>
              {secrets.map((s) => (
                <li key={s.path}>
                  <code>
                    <VisibleText text={s.path} />
                  </code>
                  : {s.why}
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
      {mode === 'tree' ? (
        <JsonTree value={value} label={title.toLowerCase()} />
      ) : (
        <pre className="raw-json" tabIndex={0} aria-label={`Raw ${title.toLowerCase()}`}>
          <LongText text={raw} />
        </pre>
      )}
    </section>
  );
}
