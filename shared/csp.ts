// Builds and checks Content-Security-Policy strings. The app's policy starts from `default-src 'none'`
// and may never allow inline or eval'd code, whatever a later edit adds.

export type CspDirectives = Readonly<Record<string, readonly string[]>>;

/** Sources that would let injected markup or strings run as code, or load from anywhere. */
const FORBIDDEN_SOURCES = [
  "'unsafe-inline'",
  "'unsafe-eval'",
  "'unsafe-hashes'",
  "'wasm-unsafe-eval'",
  "'unsafe-allow-redirects'",
  '*',
  'http:',
  'https:',
  'ws:',
  'wss:',
  'file:',
];
/** Schemes that must never supply code. */
const NOT_FOR_CODE = ['data:', 'blob:', 'filesystem:'];
const CODE_DIRECTIVES = ['script-src', 'script-src-elem', 'script-src-attr', 'worker-src', 'default-src', 'object-src', 'frame-src', 'child-src'];
const REQUIRED: Record<string, string> = {
  'default-src': "'none'",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
  'object-src': "'none'",
};

/** Joins directives into a header value, `default-src 'none'` first. Throws on any weakening. */
export function buildCsp(directives: CspDirectives): string {
  const entries = Object.entries(directives);
  const defaultSrc = entries.find(([name]) => name === 'default-src');
  const ordered = [...(defaultSrc ? [defaultSrc] : []), ...entries.filter(([name]) => name !== 'default-src')];
  const csp = ordered.map(([name, sources]) => [name, ...sources].join(' ')).join('; ');
  const problems = cspProblems(csp);
  if (problems.length) throw new Error(`Refusing a weak Content-Security-Policy: ${problems.join('; ')}`);
  return csp;
}

/** Everything wrong with a policy string; empty when it is strict enough. */
export function cspProblems(csp: string): string[] {
  const problems: string[] = [];
  const parsed = parseCsp(csp);
  if (parsed[0]?.[0] !== 'default-src') problems.push('the policy must start with default-src');
  const names = new Set<string>();
  for (const [name, sources] of parsed) {
    if (names.has(name)) problems.push(`${name} appears twice (browsers ignore the second)`);
    names.add(name);
    for (const source of sources) {
      if (FORBIDDEN_SOURCES.includes(source.toLowerCase())) problems.push(`${name} allows ${source}`);
      if (CODE_DIRECTIVES.includes(name) && NOT_FOR_CODE.includes(source.toLowerCase())) problems.push(`${name} allows code from ${source}`);
    }
  }
  for (const [name, value] of Object.entries(REQUIRED)) {
    const sources = parsed.find(([n]) => n === name)?.[1];
    if (!sources || sources.length !== 1 || sources[0] !== value) problems.push(`${name} must be exactly ${value}`);
  }
  return problems;
}

function parseCsp(csp: string): Array<[string, string[]]> {
  return csp
    .split(';')
    .map((part) => part.trim().split(/\s+/).filter(Boolean))
    .filter((tokens) => tokens.length > 0)
    .map(([name, ...sources]) => [name!.toLowerCase(), sources]);
}
