// "Managed by your organization": the managed policy the organization deployed (docs/admin.md), whether
// it counts, and each restriction with the reason the file gives. Read only: the person cannot loosen it.
import { useId } from 'react';
import { useApp } from '../store/context';
import { VisibleText } from '../ui/VisibleText';

export function ManagedPolicy() {
  const managed = useApp((s) => s.status?.managed);
  const id = useId();
  if (!managed || managed.state === 'none') return null;
  return (
    <section className="block" aria-labelledby={`${id}-managed`}>
      <h2 id={`${id}-managed`}>Managed by your organization</h2>
      <p className="muted small">
        <code className="break">
          <VisibleText text={managed.path} />
        </code>
        {managed.profile && (
          <>
            {' '}
            and the configuration profile{' '}
            <code className="break">
              <VisibleText text={managed.profile} />
            </code>
          </>
        )}
      </p>
      {managed.state === 'loaded' && <p>It outranks the team policy and your settings: what it sets here cannot be loosened.</p>}
      {managed.state === 'broken' && (
        <p role="alert">
          It cannot be read, so every server is blocked until your organization fixes it: <VisibleText text={managed.error ?? ''} />
        </p>
      )}
      {managed.state === 'ignored' && (
        <div role="alert">
          <p>
            It is ignored: <VisibleText text={managed.why ?? ''} />.
          </p>
          <p className="small">
            Fix (an administrator): <code className="break">{managed.fix}</code>
          </p>
        </div>
      )}
      {managed.restrictions.length > 0 && (
        <ul aria-label="Restrictions">
          {managed.restrictions.map((r, i) => (
            <li key={i}>
              <VisibleText text={r.text} />{' '}
              <span className="muted small">
                Reason: <VisibleText text={r.reason} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
