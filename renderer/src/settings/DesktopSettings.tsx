// Settings that only the desktop app has (kept by the shell, not the broker), and installing the
// `countersign` command (main asks with a native dialog before it writes anything).
import { useEffect, useId, useState } from 'react';
import type { DesktopApi } from '../bridge/pick-bridge';
import type { CliInstallResult, DesktopSettings as Values } from '../../../electron/ipc/desktop-api';
import { errorText } from '../bridge/api-error';
import { useActions } from '../store/context';

export function DesktopSettings({ desktop }: { desktop: DesktopApi }) {
  const { notify } = useActions();
  const id = useId();
  const [values, setValues] = useState<Values | undefined>(undefined);
  useEffect(() => {
    desktop.getDesktopSettings().then(setValues, (err: unknown) => notify('error', errorText(err)));
  }, [desktop, notify]);
  if (!values) return null;
  const toggle = (notifications: boolean) =>
    desktop.updateDesktopSettings({ notifications }).then(setValues, (err: unknown) => notify('error', errorText(err)));
  return (
    <section className="block" aria-labelledby={`${id}-d`}>
      <h2 id={`${id}-d`}>Desktop</h2>
      <label>
        <input type="checkbox" checked={values.notifications} onChange={(e) => void toggle(e.target.checked)} /> Show a notification for each new call
      </label>
      <InstallCommand desktop={desktop} />
    </section>
  );
}

function InstallCommand({ desktop }: { desktop: DesktopApi }) {
  const { notify } = useActions();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<CliInstallResult | undefined>(undefined);
  const install = () => {
    setBusy(true);
    desktop
      .installCommandLineTool()
      .then(setResult, (err: unknown) => notify('error', errorText(err)))
      .finally(() => setBusy(false));
  };
  return (
    <div className="field">
      <h3>Command line</h3>
      <p className="muted small">
        Puts a <code>countersign</code> command on your PATH that runs this app’s command line (no Node needed). Countersign shows exactly what it will write,
        and where, before it writes anything.
      </p>
      <button type="button" className="btn" disabled={busy} onClick={install}>
        Install command line tool
      </button>
      {result && (
        <p role="status" className={result.installed ? '' : 'muted'}>
          {result.message}
        </p>
      )}
    </div>
  );
}
