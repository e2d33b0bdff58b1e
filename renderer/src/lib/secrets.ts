// Flags argument values that look like credentials, so a person notices before one leaves the machine.
// Heuristics: they flag, they never block or hide the value.
import { escapeControl } from '../../../shared/escape';

const SECRET_KEY = /token|secret|passw(?:or)?d|passphrase|\bpwd\b|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|authori[sz]ation|cookie|session[_-]?id/i;

const VALUE_PATTERNS: Array<[RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/, 'a PEM private key'],
  [/-----BEGIN [A-Z0-9 ]+-----/, 'a PEM block'],
  [/\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/, 'an API key (sk-…)'],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/, 'a GitHub token (ghp_…)'],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/, 'a GitHub token (github_pat_…)'],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/, 'a JSON Web Token'],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, 'an AWS access key'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/\bAIza[0-9A-Za-z_-]{35}\b/, 'a Google API key'],
  [/\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/, 'a bearer token'],
];

/** Why this value looks secret, or undefined. `key` is the property name holding it, if any. */
export function secretReason(value: unknown, key?: string): string | undefined {
  if (typeof value === 'string') {
    for (const [re, what] of VALUE_PATTERNS) if (re.test(value)) return `looks like ${what}`;
    if (key && SECRET_KEY.test(key) && value.trim() !== '') return `the name "${escapeControl(key)}" suggests a secret`;
  } else if (key && SECRET_KEY.test(key) && (typeof value === 'number' || typeof value === 'bigint')) {
    return `the name "${escapeControl(key)}" suggests a secret`;
  }
  return undefined;
}

export interface SecretHit {
  path: string;
  why: string;
}

/** Every flagged leaf in a JSON value, with a readable path. */
export function findSecrets(value: unknown, path = '', key?: string, out: SecretHit[] = []): SecretHit[] {
  if (Array.isArray(value)) value.forEach((v, i) => findSecrets(v, `${path}[${i}]`, key, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) findSecrets(v, path ? `${path}.${k}` : k, k, out);
  } else {
    const why = secretReason(value, key);
    if (why) out.push({ path: path || '(value)', why });
  }
  return out;
}
