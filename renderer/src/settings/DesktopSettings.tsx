// Settings that only the desktop app has (kept by the shell, not the broker).
import { useEffect, useId, useState } from 'react';
import type { DesktopApi } from '../bridge/pick-bridge';
import type { DesktopSettings as Values } from '../../../electron/ipc/desktop-api';
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
    </section>
  );
}
