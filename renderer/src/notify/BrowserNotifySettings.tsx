// The browser UI's notification choice. The browser asks its own question only after the person clicks
// here; once allowed, notifications can be turned off for this page without touching the browser.
import { useId } from 'react';
import { useActions, useApp } from '../store/context';
import { askNotifyPermission } from './browser-notifications';

/** "Turn on notifications": the click is the user gesture browsers require for their prompt. */
export function NotifyButton({ className = 'btn' }: { className?: string }) {
  const { setBrowserNotify } = useActions();
  const ask = async () => setBrowserNotify({ permission: await askNotifyPermission(), on: true });
  return (
    <button type="button" className={className} onClick={() => void ask()}>
      Turn on notifications
    </button>
  );
}

export function BrowserNotifySettings() {
  const { permission, on } = useApp((s) => s.browserNotify);
  const { setBrowserNotify } = useActions();
  const id = useId();
  return (
    <section className="block" aria-labelledby={`${id}-n`}>
      <h2 id={`${id}-n`}>Notifications</h2>
      <p className="muted small">
        While this tab is in the background, a new call can show a notification; clicking it opens that call. The tab’s title always counts the calls waiting,
        as in “(2) Countersign”.
      </p>
      {permission === 'unsupported' && <p>This browser cannot show notifications.</p>}
      {permission === 'default' && <NotifyButton className="btn btn-primary" />}
      {permission === 'denied' && <p>Notifications are blocked for this page. Allow them in the browser’s site settings, then reload.</p>}
      {permission === 'granted' && (
        <label>
          <input type="checkbox" checked={on} onChange={(e) => setBrowserNotify({ on: e.target.checked })} /> Show a notification for each new call while this
          tab is in the background
        </label>
      )}
    </section>
  );
}

/** The empty queue's offer, only while the browser has not been asked. */
export function NotifyOffer() {
  const permission = useApp((s) => s.browserNotify.permission);
  if (permission !== 'default') return null;
  return (
    <p className="notify-offer">
      Working in another tab? Get a notification when a call waits. <NotifyButton className="btn btn-small" />
    </p>
  );
}
