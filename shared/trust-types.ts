// Types of the "trust you can check" part of the API: recorded definitions, review, pins, launch consent.
import type { DefinitionDiff, VersionChange } from './definition-diff.js';
import type { Finding } from './findings.js';

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
  /** Its limits (part of the hash): what its sandbox lets it reach. Absent: none. */
  limits?: import('./limits.js').LimitsProfile;
  /** sha256 of everything that decides what runs (command, args, env values, cwd, limits; or URL and headers). */
  hash: string;
  approved: boolean;
  /** Who approved it: the person, or the team policy file. */
  approvedBy?: 'person' | 'policy';
}

export interface PinView {
  version?: string;
  definitionsHash: string;
  /** For npx/uvx/docker launches: the exact package version or image digest, and what its content was. */
  package?: PinnedPackage;
  /** The launch rewrite pinning made, shown to the person. */
  rewrite?: { from: string[]; to: string[] };
  pinnedAt: string;
  by: 'person' | 'policy';
  /** Set by the organization's managed policy: the person cannot remove it. */
  managed?: boolean;
}

/** A pinned package: same version with other content is quarantined before it runs. */
export interface PinnedPackage {
  kind: 'npx' | 'uvx' | 'docker';
  spec: string;
  /** The registry's integrity for this version (npm `dist.integrity`, PyPI `sha256-…` of each file). */
  integrity?: string[];
  /** Hash of the installed package's files (npx), checked before every start. */
  contentHash?: string;
  /** Where that installed copy was when it was pinned. */
  installedAt?: string;
}

export interface ToolChangeView {
  name: string;
  /** What the person reviews: the held definition's hash (the recorded one's for a removed tool). Accepting passes it back. */
  hash: string;
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
  /** Set with `version` or `instructions`: accepting the server's new identity passes it back. */
  identityHash?: string;
  tools: ToolChangeView[];
}

export type ReviewAction = 'accept' | 'reject';

/** One tool of a review: accepting needs the `hash` of the change shown. */
export interface ReviewedTool {
  name: string;
  hash?: string;
}

/** What a person saw of a server when trusting or pinning it. */
export interface SeenServer {
  launchHash: string;
  /** `ServerView.listingHash`; absent when no listing was shown. */
  listingHash?: string;
}

/**
 * A grant the files hold but the person never confirmed in Countersign (a hand edit, or a copy from
 * elsewhere): it has no effect until confirmed.
 */
export interface UnsealedGrant {
  /** 'policy': a team policy path written into settings.json by hand (`server` is '*'). */
  kind: 'trust' | 'launch' | 'rule' | 'policy';
  server: string;
  /** The rule's tool and id (kind 'rule'). */
  tool?: string;
  ruleId?: string;
  /** What confirming binds to: the server's launch hash (trust, launch), the rule's hash, or the policy path's. */
  hash: string;
  /** The policy file's path (kind 'policy'). */
  path?: string;
  /** One line for the person. */
  what: string;
  /** What would run (trust, launch). */
  launch?: LaunchView;
}

/** Names an unsealed grant as it was shown. */
export interface UnsealedRef {
  kind: UnsealedGrant['kind'];
  server: string;
  hash: string;
  ruleId?: string;
}
