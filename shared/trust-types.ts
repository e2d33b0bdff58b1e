// Types of the "trust you can check" part of the API: recorded definitions, review, pins, launch consent.
import type { DefinitionDiff, VersionChange } from './definition-diff.js';
import type { Finding } from './description-scan.js';

/** A warning from the description/argument scan. Heuristics warn; they never decide. */
export type { Finding };

export type ServerStatus = 'idle' | 'running' | 'needs-consent' | 'quarantined' | 'blocked';

/** What will run: shown exactly and untruncated before a person lets it start. Env values are never shown. */
export interface LaunchView {
  commandLine?: string[];
  cwd?: string;
  envNames: string[];
  url?: string;
  headerNames: string[];
  approved: boolean;
  /** Who approved it: the person, or the team policy file. */
  approvedBy?: 'person' | 'policy';
}

export interface PinView {
  version?: string;
  definitionsHash: string;
  /** For npx/uvx/docker launches: the exact package version or image digest. */
  package?: { kind: 'npx' | 'uvx' | 'docker'; spec: string };
  /** The launch rewrite pinning made, shown to the person. */
  rewrite?: { from: string[]; to: string[] };
  pinnedAt: string;
  by: 'person' | 'policy';
}

export interface ToolChangeView {
  name: string;
  kind: 'added' | 'changed' | 'removed';
  diff: DefinitionDiff;
  findings: Finding[];
  detectedAt: string;
  /** The person rejected this change: it stays blocked until the server changes again. */
  rejected?: boolean;
}

export interface ServerChanges {
  server: string;
  version?: VersionChange;
  /** The server's instructions (text the model reads) changed since they were recorded. */
  instructions?: { from?: string; to?: string };
  tools: ToolChangeView[];
}

export type ReviewAction = 'accept' | 'reject';
