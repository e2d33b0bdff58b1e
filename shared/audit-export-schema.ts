// Where the audit log is exported (docs/admin.md): OTLP/HTTP logs, syslog (RFC 5424), or both.
// The one definition, read by the managed policy (managed-policy-schema.ts) and the person's settings
// (config-schema.ts). A leaf: it imports nothing of Countersign.
import { z } from 'zod';

/** What stands for a header's value whenever settings are shown: headers carry a collector's token. */
export const HIDDEN_HEADER = '••••';

const otlpSchema = z
  .object({
    /** The OTLP/HTTP logs endpoint, e.g. https://collector.example:4318/v1/logs. */
    endpoint: z
      .string()
      .url()
      .max(2000)
      .refine((u) => /^https?:\/\//i.test(u), 'an http:// or https:// address'),
    protocol: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
    /** Headers sent with each export (for a collector's token). Never logged or shown. */
    headers: z.record(z.string().max(200), z.string().max(4000)).optional(),
  })
  .strict();

const syslogSchema = z
  .object({
    /** `unix`: a local stream socket (octet-counted, as rsyslog's imptcp reads one); Node has no unix datagram sockets. */
    transport: z.enum(['tcp', 'tls', 'udp', 'unix']),
    host: z.string().min(1).max(255).optional(),
    port: z.number().int().min(1).max(65535).optional(),
    /** The local socket for `unix`. */
    path: z.string().min(1).max(4096).optional(),
    /** PEM CA file that signs the receiver's certificate, for `tls` (else the system's). */
    ca: z.string().min(1).max(4096).optional(),
    /** RFC 5424 facility number (default 13, log audit). */
    facility: z.number().int().min(0).max(23).default(13),
    /** The private enterprise number in the SD-ID countersign@<n> (default 32473, RFC 5612's example number). */
    enterpriseId: z.number().int().min(1).max(4_294_967_295).default(32473),
  })
  .strict()
  .refine((s) => (s.transport === 'unix' ? s.path !== undefined : s.host !== undefined && s.port !== undefined), {
    message: 'syslog needs host and port, or path for unix',
  });

/** Where every audit entry is exported: one or both destinations. */
export const auditExportSchema = z
  .object({
    otlp: otlpSchema.optional(),
    syslog: syslogSchema.optional(),
  })
  .strict()
  .refine((d) => d.otlp !== undefined || d.syslog !== undefined, 'name otlp, syslog or both');
export type AuditExportDestination = z.infer<typeof auditExportSchema>;
/** As written (defaults not yet applied). */
export type AuditExportInput = z.input<typeof auditExportSchema>;

/** A destination as it may be shown: every header value hidden. */
export function hideHeaders<T extends AuditExportInput>(d: T): T {
  if (!d.otlp?.headers) return d;
  return { ...d, otlp: { ...d.otlp, headers: Object.fromEntries(Object.keys(d.otlp.headers).map((k) => [k, HIDDEN_HEADER])) } };
}

type OtlpInput = NonNullable<AuditExportInput['otlp']>;
type SyslogInput = NonNullable<AuditExportInput['syslog']>;

/** An OTLP destination as shown (status, dialogs): no user, password or query, where a token may sit. */
export function otlpTarget(d: OtlpInput): string {
  let where = d.endpoint;
  try {
    const url = new URL(d.endpoint);
    where = `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    // shown as given: the schema refuses it anyway
  }
  return `${d.protocol ?? 'http/protobuf'} ${where}`;
}

export function syslogTarget(d: SyslogInput): string {
  return d.transport === 'unix' ? `unix:${d.path ?? ''}` : `${d.transport}://${d.host ?? ''}:${d.port ?? ''}`;
}

/** Each destination as one line a person reads, without credentials. */
export function exportTargets(d: AuditExportInput): string[] {
  return [...(d.otlp ? [`OTLP ${otlpTarget(d.otlp)}`] : []), ...(d.syslog ? [`syslog ${syslogTarget(d.syslog)}`] : [])];
}
