// Text hidden in invisible characters: Unicode tags that mirror ASCII ("ASCII smuggling") and variation
// selectors that carry a byte each ("emoji smuggling"), decoded so a finding can say what they spell.

// Tag characters U+E0020..U+E007E mirror printable ASCII: the "ASCII smuggling" trick.
export const decodeTags = (cps: number[]) =>
  cps
    .filter((cp) => cp >= 0xe0020 && cp <= 0xe007e)
    .map((cp) => String.fromCharCode(cp - 0xe0000))
    .join('');

// Subdivision flags (U+1F3F4 black flag + lowercase tags + cancel tag) are the one everyday use of tag characters.
export function isFlag(text: string, start: number, cps: number[]): boolean {
  const body = cps.slice(0, -1);
  return (
    text.codePointAt(start - 2) === 0x1f3f4 &&
    cps[cps.length - 1] === 0xe007f &&
    body.length >= 2 &&
    body.length <= 6 &&
    body.every((cp) => (cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039))
  );
}

// Variation selectors can carry one byte each (the "emoji smuggling" trick).
export function decodeSelectors(cps: number[]): string | undefined {
  const bytes = Uint8Array.from(cps, (cp) => (cp <= 0xfe0f ? cp - 0xfe00 : cp - 0xe0100 + 16));
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return /^[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n\t]+$/u.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}
