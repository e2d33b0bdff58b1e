// The same findings as `countersign doctor`, in the Clients view: what is wrong with this setup (a
// client entry whose Node is gone, no sandbox, a slow server…), each with its fix. Checked when the view
// opens and on request; an older broker without the check shows nothing.
import { useCallback, useEffect, useId, useState } from 'react';
import type { DoctorFinding, DoctorLevel, DoctorReport } from '../../../shared/doctor';
import { errorText, isUnsupported } from '../bridge/api-error';
import { useApi } from '../store/context';
import { VisibleText } from '../ui/VisibleText';

const LABEL: Record<DoctorLevel, string> = { problem: 'Problem', warning: 'Warning', note: 'Note', ok: 'Fine' };

function Finding({ f }: { f: DoctorFinding }) {
  return (
    <li className={f.level === 'problem' ? 'finding finding-problem' : 'finding'}>
      <strong>{LABEL[f.level]}:</strong> <VisibleText text={f.summary} />
      {f.detail && (
        <div className="small">
          <VisibleText text={f.detail} />
        </div>
      )}
      {f.fix && (
        <div className="small">
          Fix:{' '}
          <code>
            <VisibleText text={f.fix} />
          </code>
        </div>
      )}
    </li>
  );
}

export function Checkup({ project }: { project?: string }) {
  const api = useApi();
  const id = useId();
  const [report, setReport] = useState<DoctorReport | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [unsupported, setUnsupported] = useState(false);
  const [busy, setBusy] = useState(false);
  const check = useCallback(async () => {
    setBusy(true);
    try {
      setReport(await api.runDoctor(project ? { project } : undefined));
      setError(undefined);
    } catch (err) {
      if (isUnsupported(err)) setUnsupported(true);
      else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }, [api, project]);
  useEffect(() => void check(), [check]);
  if (unsupported) return null;
  const shown = report?.findings.filter((f) => f.level !== 'ok') ?? [];
  const fine = report?.findings.filter((f) => f.level === 'ok') ?? [];
  const problems = shown.filter((f) => f.level === 'problem').length;
  const warnings = shown.filter((f) => f.level === 'warning').length;
  return (
    <section className="block" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Checkup</h2>
      <p className="muted small">
        The same checks as <code>countersign doctor</code>: the broker, every client entry, the sandbox, the keyring, the store, a team policy and slow servers.
      </p>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {!report && !error && (
        <p className="muted" role="status">
          Checking…
        </p>
      )}
      {report && (
        <>
          <p role="status">
            {problems || warnings
              ? `${problems} ${problems === 1 ? 'problem' : 'problems'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}.`
              : 'No problems found.'}
          </p>
          {shown.length > 0 && (
            <ul aria-label="Findings">
              {shown.map((f, i) => (
                <Finding key={`${f.code}-${i}`} f={f} />
              ))}
            </ul>
          )}
          {fine.length > 0 && (
            <details className="snippet">
              <summary>What is fine ({fine.length})</summary>
              <ul className="small">
                {fine.map((f, i) => (
                  <li key={`${f.code}-${i}`}>
                    <VisibleText text={f.summary} />
                  </li>
                ))}
              </ul>
            </details>
          )}
        </>
      )}
      <button type="button" className="btn btn-small" disabled={busy} onClick={() => void check()}>
        {busy ? 'Checking…' : 'Check again'}
      </button>
    </section>
  );
}
