// The person's allow rules in plain words (shared/rules ruleText): what they cover, until when, and
// whether they reach past the exfiltration guard. Each can be shortened, extended or removed.
import { useEffect, useState } from 'react';
import type { Rule } from '../../../shared/decision';
import { ruleText } from '../../../shared/rules';
import { dateTime } from '../lib/format';
import { useApi, useActions, useApp } from '../store/context';

const HOUR = 3_600_000;

function expired(rule: Rule, now: number): boolean {
  return rule.expiresAt !== undefined && Date.parse(rule.expiresAt) <= now;
}

export function RulesList() {
  const api = useApi();
  const { run, refreshRules } = useActions();
  const rules = useApp((s) => s.rules);
  const allowLimit = useApp((s) => s.status?.managed?.restrictions.find((x) => x.key === 'alwaysAllow'));
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  const act = (what: 'updateRule' | 'removeRule', fn: () => Promise<unknown>) => void run(what, fn).then(() => refreshRules());

  const managedNote = allowLimit && (
    <p role="note" className="small">
      Managed by your organization: {allowLimit.text} <span className="muted">Reason: {allowLimit.reason}</span>
    </p>
  );
  if (rules.length === 0) {
    return (
      <>
        {managedNote}
        <p className="muted">No rules. “Always allow” or “Allow with this rule” on a call saves one here; rules apply only while the server is trusted.</p>
      </>
    );
  }
  return (
    <>
      {managedNote}
      <ul className="rules">
        {rules.map((r) => {
          const text = ruleText(r, { now, clock: dateTime });
          const label = `${r.tool} on ${r.server}`;
          // Each button's name starts with its visible words, then says which rule.
          const hourText = r.expiresAt === undefined || expired(r, now) ? 'Limit to 1 hour' : 'Extend to 1 hour from now';
          return (
            <li key={r.id} className={`rule ${expired(r, now) ? 'rule-expired' : ''}`}>
              <span>Allow {text}</span>
              <span className="muted small">
                since {dateTime(r.createdAt)}
                {r.definitionHash ? ' · for the definition you saw' : ''}
              </span>
              <span className="rule-actions">
                {r.session === undefined && (
                  <button
                    type="button"
                    className="btn btn-small"
                    aria-label={`${hourText} (rule for ${label})`}
                    onClick={() => act('updateRule', () => api.updateRule(r.id, { expiresAt: new Date(Date.now() + HOUR).toISOString() }))}
                  >
                    {hourText}
                  </button>
                )}
                {r.coversExfiltration && (
                  <button
                    type="button"
                    className="btn btn-small"
                    aria-label={`Not after local reads (rule for ${label})`}
                    onClick={() => act('updateRule', () => api.updateRule(r.id, { coversExfiltration: false }))}
                  >
                    Not after local reads
                  </button>
                )}
                <button
                  type="button"
                  className="btn btn-small"
                  aria-label={`Remove rule for ${label}`}
                  onClick={() => act('removeRule', () => api.removeRule(r.id))}
                >
                  Remove
                </button>
              </span>
            </li>
          );
        })}
      </ul>
    </>
  );
}
