// The arguments as a tree: every key and value, objects and arrays open by default and foldable.
// Values that look like credentials carry a "possible secret" flag.
import { useState } from 'react';
import { secretReason } from '../../../shared/secrets';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';
import { StringValue } from './StringValue';

function Leaf({ value }: { value: unknown }) {
  if (typeof value === 'string') return <StringValue value={value} />;
  if (value === null) return <span className="jv jv-null">null</span>;
  if (typeof value === 'number' || typeof value === 'boolean') return <span className={`jv jv-${typeof value}`}>{String(value)}</span>;
  return <span className="jv">{JSON.stringify(value) ?? String(value)}</span>;
}

function Node({ name, value, secretKey, rootLabel }: { name?: string | number; value: unknown; secretKey?: string; rootLabel?: string }) {
  const [open, setOpen] = useState(true);
  const isArr = Array.isArray(value);
  const isObj = !isArr && typeof value === 'object' && value !== null;
  const label =
    name === undefined ? null : typeof name === 'number' ? (
      <span className="jk jk-index">[{name}]</span>
    ) : (
      <span className="jk">
        <VisibleText text={name} />
      </span>
    );
  if (!isArr && !isObj) {
    const why = secretReason(value, secretKey);
    return (
      <li className={`jn ${why ? 'jn-secret' : ''}`}>
        {label}
        {label && <span className="jpunct">: </span>}
        <Leaf value={value} />
        {why && (
          <span className="secret-flag" title={why}>
            <Icon name="key" size={12} />
            Possible secret: {why}
          </span>
        )}
      </li>
    );
  }
  const entries: Array<[string | number, unknown]> = isArr ? (value as unknown[]).map((v, i) => [i, v]) : Object.entries(value as object);
  const n = entries.length;
  const summary = isArr ? `array · ${n} ${n === 1 ? 'item' : 'items'}` : `object · ${n} ${n === 1 ? 'key' : 'keys'}`;
  return (
    <li className="jn">
      <button type="button" className="jtoggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
        {label ?? <span className="jk">{rootLabel ?? 'value'}</span>}
        <span className="jv-meta">{summary}</span>
      </button>
      {open && entries.length > 0 && (
        <ul className="jchildren">
          {entries.map(([k, v]) => (
            <Node key={String(k)} name={k} value={v} secretKey={typeof k === 'string' ? k : secretKey} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function JsonTree({ value, label = 'arguments' }: { value: unknown; label?: string }) {
  return (
    <ul className="jtree" aria-label={`${label} as a tree`}>
      <Node value={value} rootLabel={label} />
    </ul>
  );
}
