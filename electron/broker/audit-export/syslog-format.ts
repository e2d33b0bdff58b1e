// One audit entry as an RFC 5424 syslog message: the header, one SD-ELEMENT countersign@<enterprise
// number> with the record's attributes (export-record.ts) as SD-PARAMs, and the exported entry as JSON
// for MSG. Framing for stream transports (RFC 6587 octet counting) and truncation for UDP (RFC 5426).
import os from 'node:os';
import type { AuditEntry } from '../../../shared/api.js';
import { exportAttributes, exportedEntry } from './export-record.js';

/** RFC 5426: every receiver SHOULD take 2048 octets; longer datagrams are cut to this (the SD part comes first, so seq and hash survive). */
export const UDP_MAX_OCTETS = 2048;

const BOM = '\uFEFF';
const SEVERITY = { info: 6, warning: 4 } as const;

export interface SyslogOptions {
  facility: number;
  enterpriseId: number;
  hostname?: string;
  procid?: number;
}

/** PRINTUSASCII (33–126), at most `max` characters; '-' (NILVALUE) when nothing is left. */
function headerField(text: string, max: number): string {
  const printable = text.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return printable === '' ? '-' : printable;
}

/** A PARAM-NAME: PRINTUSASCII without '=', ' ', ']' and '"', 1 to 32 characters. */
function paramName(name: string): string {
  return name.replace(/[^\x21-\x7e]|[= \]"]/g, '_').slice(0, 32);
}

/** A PARAM-VALUE: '"', '\' and ']' escaped with a backslash (RFC 5424 §6.3.3); control characters shown as \uXXXX. */
export function escapeParamValue(value: string): string {
  return value.replace(/[\\"\]]/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The structured data: one element, each attribute a param (an array repeats its param, as RFC 5424 allows). */
export function structuredData(entry: AuditEntry, enterpriseId: number): string {
  const params: string[] = [];
  for (const [name, value] of Object.entries(exportAttributes(entry))) {
    const key = paramName(name.startsWith('countersign.') ? name.slice('countersign.'.length) : name);
    for (const v of Array.isArray(value) ? value : [value]) params.push(`${key}="${escapeParamValue(String(v))}"`);
  }
  return `[countersign@${enterpriseId} ${params.join(' ')}]`;
}

/** The message, without framing. */
export function formatSyslog(entry: AuditEntry, opts: SyslogOptions): string {
  const severity = entry.decision === 'deny' ? SEVERITY.warning : SEVERITY.info;
  const pri = opts.facility * 8 + severity;
  const hostname = headerField(opts.hostname ?? os.hostname(), 255);
  const procid = headerField(String(opts.procid ?? process.pid), 128);
  const msgid = headerField(entry.kind ?? 'call', 32);
  const sd = structuredData(entry, opts.enterpriseId);
  return `<${pri}>1 ${headerField(entry.time, 64)} ${hostname} countersign ${procid} ${msgid} ${sd} ${BOM}${JSON.stringify(exportedEntry(entry))}`;
}

/** RFC 6587 §3.4.1 octet counting: the length in octets, a space, the message. */
export function octetCounted(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `), body]);
}

/** A datagram of at most `max` octets, cut on a character boundary (RFC 5426 §3.2). */
export function datagram(message: string, max = UDP_MAX_OCTETS): Buffer {
  const body = Buffer.from(message, 'utf8');
  if (body.length <= max) return body;
  let end = max;
  while (end > 0 && (body[end]! & 0xc0) === 0x80) end--; // not inside a UTF-8 sequence
  return body.subarray(0, end);
}
