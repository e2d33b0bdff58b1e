// The package ships its types as `index.ts.d`, which TypeScript does not find.
declare module 'unicode-confusables' {
  export function isConfusing(text: string): boolean;
  export function confusables(text: string): Array<{ point: string; similarTo?: string }>;
  export function rectifyConfusion(text: string): string;
}
