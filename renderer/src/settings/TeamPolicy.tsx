// The team policy file: which is in effect and who chose it, set or remove it (the desktop app confirms
// either in a native dialog; the broker checks the file, seals the choice and logs it). A path written
// into settings.json by hand is ignored; it is named here and confirmed under Servers → Not confirmed.
import { useEffect, useId, useState } from 'react';
import { useActions, useApi, useApp } from '../store/context';
import { VisibleText } from '../ui/VisibleText';

export function TeamPolicy() {
  const api = useApi();
  const { run, refreshSettings, refreshStatus } = useActions();
  const policy = useApp((s) => s.status?.policy);
  /** The path you set (sealed); COUNTERSIGN_POLICY may override it. */
  const yours = useApp((s) => s.settings?.policyPath);
  const id = useId();
  const [path, setPath] = useState('');
  useEffect(() => setPath(''), [policy?.path]);

  const change = async (policyPath: string | null) => {
    await run('updateSettings', () => api.updateSettings({ policyPath }));
    await Promise.all([refreshSettings(), refreshStatus()]);
  };
  const absolute = path.startsWith('/');

  return (
    <section className="block" aria-labelledby={`${id}-policy`}>
      <h2 id={`${id}-policy`}>Team policy</h2>
      <p className="muted small">
        A team policy only adds friction: it blocks servers, always asks for tools, pins servers, and holds a server to the command and limits it lists. It
        never lets a server run without your approval.
      </p>
      {policy?.path ? (
        <p>
          In effect:{' '}
          <code className="break">
            <VisibleText text={policy.path} />
          </code>{' '}
          <span className="muted small">
            (
            {policy.from === 'environment'
              ? 'set by COUNTERSIGN_POLICY'
              : policy.from === 'unconfirmed'
                ? 'from settings.json, unconfirmed, while the sealed records cannot be read'
                : 'set by you'}
            )
          </span>
        </p>
      ) : (
        <p className="muted">No team policy.</p>
      )}
      {policy?.error && (
        <p role="alert">
          It cannot be read, so every server is blocked until it is fixed: <VisibleText text={policy.error} />
        </p>
      )}
      {policy?.unconfirmed && (
        <p role="alert">
          settings.json names{' '}
          <code className="break">
            <VisibleText text={policy.unconfirmed} />
          </code>
          , but it was not set here, so it is ignored. Confirm or discard it under Servers → Not confirmed.
        </p>
      )}
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (absolute) void change(path);
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-policy-path`}>Policy file (an absolute path)</label>
          <input id={`${id}-policy-path`} type="text" value={path} onChange={(e) => setPath(e.target.value)} aria-invalid={path !== '' && !absolute} />
        </div>
        <button type="submit" className="btn" disabled={!absolute}>
          Use this policy
        </button>
        {yours && (
          <button type="button" className="btn" onClick={() => void change(null)}>
            Remove the policy
          </button>
        )}
      </form>
    </section>
  );
}
