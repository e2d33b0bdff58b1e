// Where the audit log is exported (docs/admin.md): each destination's state, cursor and backlog,
// and the person's own destination when the organization does not decide it. Header values are secrets:
// write-only fields, never shown back (a saved one stays saved while its field is left empty). The form is
// checked with the shared schema; the broker checks again, seals the choice and logs it (the desktop app
// confirms it in a native dialog).
import { useEffect, useId, useState } from 'react';
import type { AuditExportStatus } from '../../../shared/api';
import { auditExportSchema, HIDDEN_HEADER, type AuditExportDestination, type AuditExportInput } from '../../../shared/audit-export-schema';
import { useActions, useApi, useApp } from '../store/context';
import { VisibleText } from '../ui/VisibleText';

type Transport = 'tcp' | 'tls' | 'udp' | 'unix';
interface HeaderRow {
  name: string;
  /** Typed here; empty keeps the saved value of a saved header. */
  value: string;
  saved: boolean;
}
interface Form {
  otlp: boolean;
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: HeaderRow[];
  syslog: boolean;
  transport: Transport;
  host: string;
  port: string;
  path: string;
  ca: string;
  facility: string;
}

function formOf(d: AuditExportInput | undefined): Form {
  return {
    otlp: d?.otlp !== undefined,
    endpoint: d?.otlp?.endpoint ?? '',
    protocol: d?.otlp?.protocol ?? 'http/protobuf',
    headers: Object.keys(d?.otlp?.headers ?? {}).map((name) => ({ name, value: '', saved: true })),
    syslog: d?.syslog !== undefined,
    transport: d?.syslog?.transport ?? 'tcp',
    host: d?.syslog?.host ?? '',
    port: d?.syslog?.port !== undefined ? String(d.syslog.port) : '',
    path: d?.syslog?.path ?? '',
    ca: d?.syslog?.ca ?? '',
    facility: String(d?.syslog?.facility ?? 13),
  };
}

/** The destination the form names, as the broker takes it: a saved header left empty is sent hidden (kept). */
function inputOf(f: Form): AuditExportInput {
  const headers = f.headers.filter((h) => h.name.trim() !== '');
  return {
    ...(f.otlp && {
      otlp: {
        endpoint: f.endpoint.trim(),
        protocol: f.protocol,
        ...(headers.length && { headers: Object.fromEntries(headers.map((h) => [h.name.trim(), h.value === '' && h.saved ? HIDDEN_HEADER : h.value])) }),
      },
    }),
    ...(f.syslog && {
      syslog: {
        transport: f.transport,
        ...(f.transport === 'unix' ? { path: f.path.trim() } : { host: f.host.trim(), port: Number(f.port) }),
        ...(f.transport === 'tls' && f.ca.trim() !== '' && { ca: f.ca.trim() }),
        facility: Number(f.facility),
      },
    }),
  };
}

function check(f: Form): { ok: AuditExportDestination } | { errors: string[] } {
  const parsed = auditExportSchema.safeParse(inputOf(f));
  if (parsed.success) return { ok: parsed.data };
  return { errors: parsed.error.issues.map((i) => `${i.path.join('.') || 'destination'}: ${i.message}`) };
}

export function AuditExport() {
  const api = useApi();
  const { refreshSettings, refreshStatus } = useActions();
  const status = useApp((s) => s.status?.auditExport);
  const yours = useApp((s) => s.settings?.auditExport);
  const id = useId();
  const [form, setForm] = useState<Form>(() => formOf(yours));
  const [errors, setErrors] = useState<string[]>([]);
  const [serverError, setServerError] = useState<string>();
  const [saved, setSaved] = useState<string>();
  // Reset to what is saved when that changes (not on every refresh, which would lose what is typed).
  const savedKey = JSON.stringify(yours ?? null);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => setForm(formOf(yours)), [savedKey]);
  const edit = (change: Partial<Form>) => {
    setForm((f) => ({ ...f, ...change }));
    setErrors([]);
    setSaved(undefined);
  };
  const managed = status?.source === 'managed';
  // The broker says when a destination's state changes, not each time its cursor moves: while this
  // section is open, the cursor and backlog are read again every few seconds.
  const exporting = status !== undefined;
  useEffect(() => {
    if (!exporting) return;
    const timer = setInterval(() => void refreshStatus(), 3000);
    return () => clearInterval(timer);
  }, [exporting, refreshStatus]);

  const change = async (to: AuditExportDestination | null) => {
    setServerError(undefined);
    setSaved(undefined);
    try {
      await api.updateSettings({ auditExport: to });
      setSaved(to ? 'Saved: the audit log is exported there.' : 'Removed: the audit log no longer leaves this machine.');
    } catch (err) {
      setServerError(err instanceof Error ? err.message : String(err));
    }
    await Promise.all([refreshSettings(), refreshStatus()]);
  };

  return (
    <section className="block" aria-labelledby={`${id}-export`}>
      <h2 id={`${id}-export`}>Audit export</h2>
      <p className="muted small">
        Every entry of the audit log (calls, arguments, decisions, changes) can be sent to a log pipeline over OpenTelemetry (OTLP/HTTP) or syslog.
      </p>
      <ExportState status={status} />
      {managed ? (
        <p role="note">
          <strong>Managed by your organization.</strong>{' '}
          {status.required ? (
            <>
              The audit export is required: <VisibleText text={status.required.reason} />
            </>
          ) : (
            'Its managed policy names the destination.'
          )}{' '}
          It cannot be changed here.
        </p>
      ) : (
        <form
          aria-label="Your audit export destination"
          onSubmit={(e) => {
            e.preventDefault();
            const result = check(form);
            if ('errors' in result) setErrors(result.errors);
            else void change(result.ok);
          }}
        >
          <fieldset>
            <legend>
              <label>
                <input type="checkbox" checked={form.otlp} onChange={(e) => edit({ otlp: e.target.checked })} /> OpenTelemetry (OTLP/HTTP logs)
              </label>
            </legend>
            {form.otlp && (
              <>
                <div className="field">
                  <label htmlFor={`${id}-endpoint`}>Endpoint</label>
                  <input
                    id={`${id}-endpoint`}
                    type="url"
                    placeholder="https://collector.example:4318/v1/logs"
                    value={form.endpoint}
                    onChange={(e) => edit({ endpoint: e.target.value })}
                  />
                </div>
                <div className="field">
                  <label htmlFor={`${id}-protocol`}>Protocol</label>
                  <select id={`${id}-protocol`} value={form.protocol} onChange={(e) => edit({ protocol: e.target.value as Form['protocol'] })}>
                    <option value="http/protobuf">http/protobuf</option>
                    <option value="http/json">http/json</option>
                  </select>
                </div>
                {form.headers.map((h, i) => (
                  <div className="inline-form" key={i}>
                    <div className="field">
                      <label htmlFor={`${id}-hn-${i}`}>Header name</label>
                      <input
                        id={`${id}-hn-${i}`}
                        type="text"
                        value={h.name}
                        readOnly={h.saved}
                        onChange={(e) => edit({ headers: form.headers.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)) })}
                      />
                    </div>
                    <div className="field">
                      <label htmlFor={`${id}-hv-${i}`}>{h.saved ? `New value for ${h.name} (saved, not shown; empty keeps it)` : 'Header value'}</label>
                      <input
                        id={`${id}-hv-${i}`}
                        type="password"
                        autoComplete="off"
                        value={h.value}
                        onChange={(e) => edit({ headers: form.headers.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)) })}
                      />
                    </div>
                    <button type="button" className="btn" onClick={() => edit({ headers: form.headers.filter((_, j) => j !== i) })}>
                      Remove header {h.name}
                    </button>
                  </div>
                ))}
                <button type="button" className="btn" onClick={() => edit({ headers: [...form.headers, { name: '', value: '', saved: false }] })}>
                  Add a header
                </button>
              </>
            )}
          </fieldset>
          <fieldset>
            <legend>
              <label>
                <input type="checkbox" checked={form.syslog} onChange={(e) => edit({ syslog: e.target.checked })} /> Syslog (RFC 5424)
              </label>
            </legend>
            {form.syslog && (
              <>
                <div className="field">
                  <label htmlFor={`${id}-transport`}>Transport</label>
                  <select id={`${id}-transport`} value={form.transport} onChange={(e) => edit({ transport: e.target.value as Transport })}>
                    <option value="tcp">tcp</option>
                    <option value="tls">tls</option>
                    <option value="udp">udp</option>
                    <option value="unix">unix (local socket)</option>
                  </select>
                </div>
                {form.transport === 'unix' ? (
                  <div className="field">
                    <label htmlFor={`${id}-path`}>Socket path</label>
                    <input id={`${id}-path`} type="text" value={form.path} onChange={(e) => edit({ path: e.target.value })} />
                  </div>
                ) : (
                  <>
                    <div className="field">
                      <label htmlFor={`${id}-host`}>Host</label>
                      <input id={`${id}-host`} type="text" value={form.host} onChange={(e) => edit({ host: e.target.value })} />
                    </div>
                    <div className="field">
                      <label htmlFor={`${id}-port`}>Port</label>
                      <input id={`${id}-port`} type="number" min={1} max={65535} value={form.port} onChange={(e) => edit({ port: e.target.value })} />
                    </div>
                  </>
                )}
                {form.transport === 'tls' && (
                  <div className="field">
                    <label htmlFor={`${id}-ca`}>CA file (PEM; empty: the system's)</label>
                    <input id={`${id}-ca`} type="text" value={form.ca} onChange={(e) => edit({ ca: e.target.value })} />
                  </div>
                )}
                <div className="field">
                  <label htmlFor={`${id}-facility`}>Facility</label>
                  <input id={`${id}-facility`} type="number" min={0} max={23} value={form.facility} onChange={(e) => edit({ facility: e.target.value })} />
                </div>
              </>
            )}
          </fieldset>
          {errors.length > 0 && (
            <ul role="alert" aria-label="The destination is not valid">
              {errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          )}
          {serverError && (
            <p role="alert">
              Not changed: <VisibleText text={serverError} />
            </p>
          )}
          {saved && <p role="status">{saved}</p>}
          <button type="submit" className="btn" disabled={!form.otlp && !form.syslog}>
            Export here
          </button>
          {yours && (
            <button type="button" className="btn" onClick={() => void change(null)}>
              Stop exporting
            </button>
          )}
        </form>
      )}
    </section>
  );
}

function ExportState({ status }: { status: AuditExportStatus | undefined }) {
  if (!status) return <p className="muted">The audit log is not exported.</p>;
  return (
    <ul aria-label="Export destinations">
      {status.sinks.map((s) => (
        <li key={`${s.kind} ${s.target}`}>
          {s.kind === 'otlp' ? 'OTLP' : 'syslog'} <code className="break">{s.target}</code>: <strong>{s.state}</strong>{' '}
          <span className="muted small">
            ({status.source === 'managed' ? 'set by your organization' : 'set by you'}; exported up to #{s.exportedSeq}, backlog {s.backlog}
            {s.backlogExceeded ? ', past its bound: reported, nothing dropped' : ''})
          </span>
          {s.lastError && (
            <span className="small">
              {' '}
              Last error: <VisibleText text={s.lastError} />
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
