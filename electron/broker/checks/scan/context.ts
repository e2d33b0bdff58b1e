// What one scan is about (which text, where it sits, which other servers exist) and how severe each rule
// is there: the state every part of the scan adds its findings to.
import type { Finding, FindingCode, Severity } from '../../../../shared/findings.js';
import { excerptAt } from './finding-text.js';

export interface ServerTools {
  server: string;
  tools: string[];
}

export interface ScanContext {
  /** Tools of the OTHER configured servers (not the one whose text is scanned). */
  otherServers: ServerTools[];
  where: 'description' | 'name' | 'argument';
}

export type Where = ScanContext['where'];

// Severity per rule for [description, name, argument]. Arguments are softer: the model writes
// them, often from the user's own request, and file contents legitimately hold odd bytes.
const SEVERITY = {
  invisible: ['danger', 'danger', 'warning'],
  smuggled: ['danger', 'danger', 'danger'],
  tags: ['danger', 'danger', 'danger'],
  bidiOverride: ['danger', 'danger', 'warning'],
  bidiMark: ['warning', 'danger', 'info'],
  ansi: ['danger', 'danger', 'warning'],
  control: ['warning', 'danger', 'info'],
  injection: ['danger', 'danger', 'warning'],
  directive: ['warning', 'warning', 'info'],
  crossDistinct: ['warning', 'warning', 'info'],
  crossGeneric: ['info', 'info', 'info'],
  secretFile: ['danger', 'danger', 'warning'],
  secretPhrase: ['warning', 'warning', 'info'],
  secretWord: ['info', 'info', 'info'],
  long: ['warning', 'warning', 'info'],
  url: ['warning', 'warning', 'info'],
  base64: ['warning', 'warning', 'info'],
} as const satisfies Record<string, readonly [Severity, Severity, Severity]>;
export type Rule = keyof typeof SEVERITY;
const WHERE_INDEX: Record<Where, 0 | 1 | 2> = { description: 0, name: 1, argument: 2 };

/** One text being scanned, and what was found in it so far. */
export interface Scan {
  text: string;
  where: Where;
  /** "The description", "The schema title at …": how messages name the text. */
  noun: string;
  findings: Finding[];
}

/** A finding about [start, end) of the scanned text, at the rule's severity for where the text sits. */
export function findingAt(scan: Scan, code: FindingCode, rule: Rule, message: string, start: number, end: number, exact = false): Finding {
  const severity = SEVERITY[rule][WHERE_INDEX[scan.where]];
  return { code, severity, message, excerpt: excerptAt(scan.text, start, end, exact) };
}

/** findingAt, added to the scan's findings. */
export function add(scan: Scan, code: FindingCode, rule: Rule, message: string, start: number, end: number, exact = false): void {
  scan.findings.push(findingAt(scan, code, rule, message, start, end, exact));
}
