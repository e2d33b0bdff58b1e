// Settings: approval timeout, saved rules, theme. The broker stores them; this screen edits them.
import { useEffect, useId, useState } from 'react';
import type { Settings } from '../../../shared/api';
import type { DesktopApi } from '../bridge/pick-bridge';
import { useApi, useActions, useApp } from '../store/context';
import { BrowserNotifySettings } from '../notify/BrowserNotifySettings';
import { DesktopSettings } from './DesktopSettings';
import { InlineApproval } from './InlineApproval';
import { RulesList } from './RulesList';
import { TeamPolicy } from './TeamPolicy';
import { AuditExport } from './AuditExport';
import { UndoBounds } from '../undo/UndoBounds';
import { ManagedPolicy } from './ManagedPolicy';

export function SettingsScreen({ desktop }: { desktop?: DesktopApi }) {
  const api = useApi();
  const { run, refreshSettings } = useActions();
  const settings = useApp((s) => s.settings);
  const id = useId();
  const [timeout, setTimeoutText] = useState('');
  const [saved, setSaved] = useState('');
  const savedTimeout = settings?.approvalTimeoutSeconds;
  useEffect(() => setTimeoutText(savedTimeout === undefined ? '' : String(savedTimeout)), [savedTimeout]);

  const update = async (patch: Partial<Settings>, what: string) => {
    const res = await run('updateSettings', () => api.updateSettings(patch));
    if (res) setSaved(`${what} saved.`);
    await refreshSettings();
  };
  const seconds = Number(timeout);
  const valid = Number.isInteger(seconds) && seconds >= 1 && seconds <= 86_400;

  return (
    <div className="settings pad">
      <h1>Settings</h1>
      <ManagedPolicy />
      <section className="block" aria-labelledby={`${id}-t`}>
        <h2 id={`${id}-t`}>Approval timeout</h2>
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (valid) void update({ approvalTimeoutSeconds: seconds }, 'Timeout');
          }}
        >
          <div className="field">
            <label htmlFor={`${id}-timeout`}>Seconds a call waits for you before it is denied</label>
            <input
              id={`${id}-timeout`}
              type="number"
              min={1}
              max={86400}
              step={1}
              value={timeout}
              onChange={(e) => setTimeoutText(e.target.value)}
              aria-invalid={!valid}
            />
          </div>
          <button type="submit" className="btn btn-primary" disabled={!valid || seconds === settings?.approvalTimeoutSeconds}>
            Save
          </button>
        </form>
        <p className="muted small">An unanswered call is denied when its time is up; the client is told why.</p>
      </section>

      <InlineApproval />

      <UndoBounds settings={settings} onSave={(patch) => void update(patch, 'Undo limits')} />

      <section className="block" aria-labelledby={`${id}-theme`}>
        <h2 id={`${id}-theme`}>Theme</h2>
        <fieldset className="radio-row">
          <legend className="sr-only">Theme</legend>
          {(['system', 'light', 'dark'] as const).map((t) => (
            <label key={t}>
              <input
                type="radio"
                name={`${id}-theme-radio`}
                checked={(settings?.theme ?? 'system') === t}
                onChange={() => void update({ theme: t }, 'Theme')}
              />
              {t === 'system' ? ' Follow the system' : t === 'light' ? ' Light' : ' Dark'}
            </label>
          ))}
        </fieldset>
      </section>

      {!desktop && <BrowserNotifySettings />}
      <TeamPolicy />
      <AuditExport />

      <section className="block" aria-labelledby={`${id}-rules`}>
        <h2 id={`${id}-rules`}>Saved rules</h2>
        <RulesList />
      </section>
      {desktop && <DesktopSettings desktop={desktop} />}
      <p className="sr-only" role="status">
        {saved}
      </p>
    </div>
  );
}
