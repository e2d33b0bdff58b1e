// What a check found in a tool's text, its arguments, its schema or its names: the shape the broker
// puts on a card and the UI shows. The checks themselves run in the broker (electron/broker/checks/);
// their wording for a person is in shared/reasons.ts.
import type { Severity } from './decision.js';

export type { Severity };

export type FindingCode =
  | 'invisible-characters'
  | 'bidi-control'
  | 'unicode-tags'
  | 'control-characters'
  | 'model-instructions'
  | 'cross-server-reference'
  | 'secret-reference'
  | 'long-description'
  | 'embedded-url'
  | 'base64-blob'
  /** Set by the argument checks (electron/broker/checks/secret-values.ts): a credential-shaped value. */
  | 'secret-value'
  /** Set by self-protection (shared/protected-paths.ts), not by the text scan. */
  | 'protected-path'
  /** Set by the inputSchema check (electron/broker/checks/schema-check.ts). */
  | 'schema-violation'
  | 'schema-invalid'
  | 'undeclared-argument'
  /** Set by the name checks (electron/broker/trust/name-checks.ts). */
  | 'confusable-name'
  | 'name-format'
  | 'server-identity';

export interface Finding {
  code: FindingCode;
  severity: Severity;
  /** One plain sentence; any server text in it is already escaped. */
  message: string;
  /** The offending text with some context, made visible with escapeControl. */
  excerpt: string;
  /** Set by scanTool: which part of the definition, e.g. 'inputSchema.properties.sidenote.description'. */
  field?: string;
}
