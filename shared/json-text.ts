// A value shown as JSON text. JSON has no text for undefined, a function or a symbol: those show as
// String() writes them.
export function jsonText(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space) ?? String(value);
}
