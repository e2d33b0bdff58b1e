// "Allow with a rule": approve this call and let matching calls run, scoped by this call's own
// arguments (files under a folder, the same files, exactly these arguments) for a lifetime.
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { DecisionRequest, PendingCall, RuleLifetime, ScopeChoice } from '../../../shared/api';
import { namedPaths } from '../../../shared/path-like';
import { folderChoices } from '../../../shared/rules';
import { VisibleText } from '../ui/VisibleText';

interface Props {
  call: PendingCall;
  busy: boolean;
  onDecide(decision: DecisionRequest): void;
}

const LIFETIMES: Array<{ value: string; label: string; lifetime?: RuleLifetime }> = [
  { value: 'call', label: 'this call only' },
  { value: '15', label: '15 minutes', lifetime: { kind: 'minutes', minutes: 15 } },
  { value: '60', label: '1 hour', lifetime: { kind: 'minutes', minutes: 60 } },
  { value: 'session', label: 'this client session', lifetime: { kind: 'session' } },
  { value: 'always', label: 'always (until you remove it)', lifetime: { kind: 'always' } },
];

export function RuleMaker({ call, busy, onDecide }: Props) {
  const id = useId();
  const scopes = useMemo(() => {
    const out: Array<{ value: string; label: string; choice: ScopeChoice }> = [];
    for (const dir of folderChoices(call.tool, call.arguments))
      out.push({ value: `under:${dir}`, label: `files under ${dir}`, choice: { kind: 'under', dir } });
    const targets = namedPaths(call.arguments).paths;
    if (targets.length) out.push({ value: 'same', label: `only ${targets.map((t) => t.path).join(' and ')}`, choice: { kind: 'same-target' } });
    out.push({ value: 'exact', label: 'exactly these arguments', choice: { kind: 'exact' } });
    out.push({ value: 'tool', label: 'any arguments', choice: { kind: 'tool' } });
    return out;
  }, [call.tool, call.arguments]);
  // Folded by default: the decision bar keeps its room for the preview and the main buttons.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [call.id]);
  // Opened from its button, focus goes to its first field; Escape folds it, focus back on the button.
  const toggle = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLSelectElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (open && refocus.current) first.current?.focus();
    if (!open && refocus.current) toggle.current?.focus();
    refocus.current = false;
  }, [open]);
  const [scope, setScope] = useState(scopes[0]!.value);
  useEffect(() => setScope(scopes[0]!.value), [scopes]);
  const [life, setLife] = useState('60');
  const [exfil, setExfil] = useState(false);
  const guarded = call.reasons.some((r) => r.code === 'exfiltration-risk');
  const chosen = scopes.find((s) => s.value === scope) ?? scopes[0]!;
  const lifetime = LIFETIMES.find((l) => l.value === life)?.lifetime;

  const submit = () => {
    if (!lifetime) return onDecide({ kind: 'allow-once' });
    onDecide({ kind: 'allow-rule', rule: { scope: chosen.choice, lifetime, ...(guarded && exfil ? { coversExfiltration: true } : {}) } });
  };

  if (!open) {
    return (
      <button
        ref={toggle}
        type="button"
        className="btn"
        disabled={busy}
        aria-expanded={false}
        onClick={() => {
          refocus.current = true;
          setOpen(true);
        }}
      >
        Allow with a rule…
      </button>
    );
  }
  return (
    <fieldset
      className="rule-maker"
      aria-label="Allow with a rule"
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        refocus.current = true;
        setOpen(false);
      }}
    >
      <legend className="small">
        Allow{' '}
        <code className="tool-name">
          <VisibleText text={call.tool} />
        </code>{' '}
        with a rule
      </legend>
      <div className="field">
        <label htmlFor={`${id}-scope`}>Calls with</label>
        <select ref={first} id={`${id}-scope`} value={scope} onChange={(e) => setScope(e.target.value)}>
          {scopes.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-life`}>For</label>
        <select id={`${id}-life`} value={life} onChange={(e) => setLife(e.target.value)}>
          {LIFETIMES.map((l) => (
            <option key={l.value} value={l.value}>
              {l.label}
            </option>
          ))}
        </select>
      </div>
      {guarded && (
        <label className="small">
          <input type="checkbox" checked={exfil} onChange={(e) => setExfil(e.target.checked)} /> also after this agent read local data
        </label>
      )}
      <button type="button" className="btn" disabled={busy} onClick={submit}>
        {lifetime ? 'Allow with this rule' : 'Allow this call only'}
      </button>
      {!call.serverTrusted && <span className="hint">Rules apply only while the server is trusted.</span>}
    </fieldset>
  );
}
