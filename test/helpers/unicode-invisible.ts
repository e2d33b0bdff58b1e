// Every code point of the classes issue 22 names — Default_Ignorable_Code_Point, Cf, Zs, Zl, Zp, Cc and
// the bidi controls — generated from the engine's Unicode property classes over 0..0x10FFFF, not from a
// hand list, and not from the module under test (shared/text/invisible.ts). Surrogates are left out:
// none of these classes holds one.
const NAMED = /^[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Bidi_Control}]$/u;

let cached: number[] | undefined;
export function namedInvisibleCodePoints(): number[] {
  if (!cached) {
    cached = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (NAMED.test(String.fromCodePoint(cp))) cached.push(cp);
    }
  }
  return cached;
}

export const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
