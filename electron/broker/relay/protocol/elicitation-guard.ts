// A server's elicitation reaches the person as a form in their client, where Countersign shows its own
// approval forms when approval inside the client is on (inline-approval.ts). So every form a server sends
// is marked with the server's name, in words Countersign's own forms never carry; and while inline
// approval is on for that client, a form that imitates Countersign's (its wording, its field, its
// choices) is declined for the server and logged. Compared after folding case, whitespace, invisible
// characters and look-alikes (name-checks.ts readerFold), so a respelling is the same form.
import { escapeControl } from '../../../../shared/escape.js';
import { INLINE_SCHEMA } from '../../calls/inline-schema.js';
import { readerFold } from '../../trust/name-checks.js';

/** What Countersign puts before a server's own message: the server cannot take it away. */
export function serverMark(server: string): string {
  return `From the MCP server '${escapeControl(server)}' (not Countersign):`;
}

/** The elicitation's params with its message marked as the server's (form and URL mode alike). */
export function markedParams(server: string, params: Record<string, unknown>): Record<string, unknown> {
  const message = typeof params.message === 'string' ? params.message : '';
  return { ...params, message: `${serverMark(server)}\n${message}` };
}

// Countersign's own form, folded once: its field names and titles, its choices, its words.
const FIELDS = new Set(Object.entries(INLINE_SCHEMA.properties).flatMap(([name, p]) => [readerFold(name), readerFold(p.title)]));
const CHOICES = new Set(Object.values(INLINE_SCHEMA.properties).flatMap((p) => [...p.enum, ...p.enumNames].map(readerFold)));
const NAME = readerFold('Countersign');
const APPROVE = bareOf('Approve');
const ON = readerFold('on');
const PREVIEW = readerFold('Full preview:');
/** Letters and digits only: "Counter-sign", "C o u n t e r s i g n" read as the name all the same. */
function bare(folded: string): string {
  return folded.replace(/[^\p{L}\p{N}]/gu, '');
}
function bareOf(text: string): string {
  return bare(readerFold(text));
}

/** At most this much of a text is compared: a longer message is judged by its start. */
const COMPARED = 20_000;

/** Why a server's elicitation imitates Countersign's approval form, or undefined when it does not. */
export function imitation(params: Record<string, unknown> | undefined): string | undefined {
  if (!params) return undefined;
  const raw = typeof params.message === 'string' ? params.message.slice(0, COMPARED) : '';
  const message = readerFold(raw);
  if (bare(message).includes(NAME)) return 'its message names Countersign';
  // Countersign's question, "Approve <tool> on <server>?", however it is spaced or punctuated.
  // Line by line, and sentence by sentence within a line (folding makes every line break a space).
  const sentences = raw.split(/[\n\r\v\f\u0085\u2028\u2029]+/u).flatMap((line) => readerFold(line).split(/(?<=[.!?:;])\s+/u));
  for (const sentence of sentences) {
    const words = sentence.replace(/[^\p{L}\p{N}?]+/gu, ' ').trim();
    if (bare(words).startsWith(APPROVE) && ` ${words} `.includes(` ${ON} `) && words.endsWith('?'))
      return 'its message asks "Approve … on …?" as Countersign\'s form does';
  }
  if (message.includes(PREVIEW)) return 'its message points to a "Full preview" as Countersign\'s form does';
  for (const text of titles(params)) {
    const folded = readerFold(text.slice(0, COMPARED));
    if (bare(folded).includes(NAME)) return 'its title names Countersign';
    if (FIELDS.has(folded)) return `its title is Countersign's ('${escapeControl(text.slice(0, 80))}')`;
  }
  const schema = params.requestedSchema;
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties).slice(0, 1000)) {
    if (FIELDS.has(readerFold(name)) || FIELDS.has(bare(readerFold(name))))
      return `it asks for a field named like Countersign's ('${escapeControl(name.slice(0, 80))}')`;
    for (const text of choicesOf(property)) {
      const folded = readerFold(text.slice(0, 200));
      if (CHOICES.has(folded) || CHOICES.has(bare(folded))) return `it offers Countersign's choices ('${escapeControl(text.slice(0, 80))}')`;
      if (FIELDS.has(folded) || bare(folded).includes(NAME)) return `it labels a field like Countersign's form ('${escapeControl(text.slice(0, 80))}')`;
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The form's own title, if it gives one, and its schema's. */
function titles(params: Record<string, unknown>): string[] {
  const schema = isObject(params.requestedSchema) ? params.requestedSchema : {};
  return [params.title, schema.title, schema.description].filter((t): t is string => typeof t === 'string');
}

/** Every text a field shows or accepts: its title, description, enum values and their names, one/anyOf consts and titles, items' too. */
function choicesOf(property: unknown, depth = 0): string[] {
  if (!isObject(property) || depth > 3) return [];
  const out: string[] = [];
  for (const key of ['title', 'description', 'const', 'default']) if (typeof property[key] === 'string') out.push(property[key] as string);
  for (const key of ['enum', 'enumNames'])
    if (Array.isArray(property[key])) out.push(...(property[key] as unknown[]).filter((v): v is string => typeof v === 'string').slice(0, 1000));
  for (const key of ['oneOf', 'anyOf'])
    if (Array.isArray(property[key])) for (const option of (property[key] as unknown[]).slice(0, 1000)) out.push(...choicesOf(option, depth + 1));
  if (isObject(property.items)) out.push(...choicesOf(property.items, depth + 1));
  return out;
}

/** Form mode: an empty elicitation capability means form (older clients); `{ url }` alone does not. */
export function formElicitation(capabilities: unknown): boolean {
  const e = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (!e || typeof e !== 'object') return false;
  const modes = e as { form?: unknown; url?: unknown };
  return modes.form !== undefined || modes.url === undefined;
}
