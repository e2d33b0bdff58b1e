// Whether a configured server runs exactly what an entry of the organization's catalogue names (pure:
// the facts are gathered in catalogue-facts.ts). A match makes it "trusted by your organization"; the
// nearest entry that does not match is named with every difference, so the person sees what changed.
import type { CatalogueEntry } from '../../../shared/managed-policy-schema.js';
import { escapeControl as e } from '../../../shared/escape.js';
import { isLooser, NO_LIMITS, summarizeLimits, type LimitsProfile } from '../../../shared/limits.js';
import { sameArgv } from './team-policy.js';

/** What runs, as far as it is known. */
export interface LaunchFacts {
  /** The configured server's name (an entry of that name is compared with it, whatever it runs). */
  server: string;
  /** The exact command line; undefined for a remote server. */
  argv?: string[];
  remoteUrl?: string;
  limits?: LimitsProfile;
  package?: PackageFacts;
  /** The hash of its last tool listing (trust/definition-tracker.ts listingHash); undefined before one. */
  listingHash?: string;
  /** Variables it is given that change what code runs (NODE_OPTIONS, LD_PRELOAD, PYTHONPATH, npm_config_registry…). */
  loaderEnv?: string[];
  /** False until the content was checked (at a start): until then content differences are "not checked yet". */
  contentChecked: boolean;
}

export interface PackageFacts {
  kind: 'npm' | 'pypi' | 'docker';
  name: string;
  /** The exact version (npm, PyPI) or the image digest (docker); undefined when the launch names none. */
  version?: string;
  /** npm: the installed copy's content hash (package-hash.ts); with `where` it was found. */
  contentHash?: string;
  where?: string;
  /** npm: run as node on an installed copy's script, not through npx. */
  installed?: boolean;
  /** npm: the registry's dist.integrity for name@version. */
  integrity?: string;
  /** PyPI: the sha256 of every file the registry serves for name==version. */
  files?: string[];
  /** Why the installed content could not be read (npx would fetch it now). */
  contentProblem?: string;
  /** Why the registry's answer could not be read. */
  registryProblem?: string;
}

export type CatalogueVerdict = { kind: 'trusted'; entry: string } | { kind: 'mismatch'; entry: string; differences: string[] } | { kind: 'none' };

export interface MatchOptions {
  /** At a start the tools are not listed yet: the definitions are checked when they are. */
  ignoreDefinitions?: boolean;
  /** Content not checked yet counts as matching: only to foretell a refusal on the Servers screen. */
  assumeContent?: boolean;
}

export function matchCatalogue(entries: readonly CatalogueEntry[], facts: LaunchFacts, opts: MatchOptions = {}): CatalogueVerdict {
  let nearest: { entry: string; differences: string[] } | undefined;
  for (const entry of entries) {
    const related = sameSubject(entry, facts);
    if (!related && entry.name !== facts.server) continue;
    const differences = differencesFrom(entry, facts, opts);
    if (differences.length === 0) return { kind: 'trusted', entry: entry.name };
    if (!nearest || differences.length < nearest.differences.length) nearest = { entry: entry.name, differences };
  }
  return nearest ? { kind: 'mismatch', ...nearest } : { kind: 'none' };
}

/** The entry names the same package or image (any version), or the same command line. */
function sameSubject(entry: CatalogueEntry, facts: LaunchFacts): boolean {
  const s = entry.source;
  const p = facts.package;
  if ('command' in s) return facts.argv !== undefined && sameArgv(s.command, facts.argv);
  if ('url' in s) return facts.remoteUrl === s.url;
  if ('npm' in s) return p?.kind === 'npm' && p.name === s.npm.name;
  if ('pypi' in s) return p?.kind === 'pypi' && pypiName(p.name) === pypiName(s.pypi.name);
  return p?.kind === 'docker' && imageName(p.name) === imageName(s.docker.image);
}

function differencesFrom(entry: CatalogueEntry, facts: LaunchFacts, opts: MatchOptions): string[] {
  const out = sourceDifferences(entry, facts, opts.assumeContent === true && !facts.contentChecked);
  // The same files with another loader, preload or package index are not what was reviewed.
  if (facts.loaderEnv?.length) out.push(`its environment sets ${facts.loaderEnv.map((n) => e(n)).join(', ')}, which change what code runs`);
  if (entry.limits) {
    if (!facts.argv) out.push(`it is a remote server, so it cannot run with the limits the entry requires (${summarizeLimits(entry.limits)})`);
    else if (isLooser(facts.limits ?? NO_LIMITS, entry.limits)) {
      out.push(`it runs with ${summarizeLimits(facts.limits ?? NO_LIMITS)}, looser than the entry's ${summarizeLimits(entry.limits)}`);
    }
  }
  if (entry.definitionsHash && !opts.ignoreDefinitions) {
    if (facts.listingHash === undefined) out.push('its tool definitions are not known yet (no listing since it started)');
    else if (facts.listingHash !== entry.definitionsHash) {
      out.push(`its tool definitions (listing hash ${facts.listingHash}) differ from the reviewed ones (${entry.definitionsHash})`);
    }
  }
  return out;
}

function sourceDifferences(entry: CatalogueEntry, facts: LaunchFacts, assumeContent: boolean): string[] {
  const s = entry.source;
  const p = facts.package;
  const runs = facts.argv ? `it runs ${shown(facts.argv)}` : `it is the remote server ${e(facts.remoteUrl ?? '')}`;
  if ('command' in s) return facts.argv && sameArgv(s.command, facts.argv) ? [] : [`${runs}, not the reviewed command ${shown(s.command)}`];
  if ('url' in s) return facts.remoteUrl === s.url ? [] : [`${runs}, not the reviewed remote server ${e(s.url)}`];
  if ('npm' in s) {
    const want = s.npm;
    if (p?.kind !== 'npm' || p.name !== want.name) return [`${runs}, not the npm package ${e(want.name)}@${e(want.version)}`];
    if (p.version !== want.version)
      return [`it runs ${e(want.name)} version ${e(p.version ?? '(unnamed: whatever npx finds)')}, not the reviewed ${e(want.version)}`];
    const out: string[] = [];
    // npx checks a download against the registry's integrity; a copy run with node is only its files.
    if (p.installed && !want.contentHash)
      out.push(`it runs an installed copy (${e(p.where ?? '')}), which only a contentHash can check, and the entry names none`);
    if (assumeContent) return out;
    if (want.contentHash) {
      if (!facts.contentChecked) out.push('its installed content is not checked yet (it is checked when it starts)');
      else if (p.contentHash === undefined) out.push(`its installed content could not be checked: ${problem(p.contentProblem)}`);
      else if (p.contentHash !== want.contentHash) {
        out.push(`its installed content${p.where ? ` (${e(p.where)})` : ''} is ${p.contentHash}, not the reviewed ${want.contentHash}`);
      }
    }
    if (want.integrity) {
      if (!facts.contentChecked) out.push("npm's integrity for it is not checked yet (it is checked when it starts)");
      else if (p.integrity === undefined) out.push(`npm's integrity for it could not be read: ${problem(p.registryProblem)}`);
      else if (p.integrity !== want.integrity)
        out.push(`npm's dist.integrity for ${e(want.name)}@${e(want.version)} is ${e(p.integrity)}, not the reviewed ${want.integrity}`);
    }
    return out;
  }
  if ('pypi' in s) {
    const want = s.pypi;
    if (p?.kind !== 'pypi' || pypiName(p.name) !== pypiName(want.name)) return [`${runs}, not the PyPI package ${e(want.name)}==${e(want.version)}`];
    if (p.version !== want.version) return [`it runs ${e(want.name)} version ${e(p.version ?? '(unnamed: the latest)')}, not the reviewed ${e(want.version)}`];
    if (assumeContent) return [];
    if (!facts.contentChecked) return ["PyPI's file hashes for it are not checked yet (they are checked when it starts)"];
    if (!p.files?.length) return [`PyPI's file hashes for it could not be read: ${problem(p.registryProblem)}`];
    const unreviewed = p.files.filter((h) => !want.sha256.includes(h));
    return unreviewed.length ? [`PyPI serves files for ${e(want.name)}==${e(want.version)} that were not reviewed (sha256 ${unreviewed.join(', ')})`] : [];
  }
  const want = s.docker;
  if (p?.kind !== 'docker' || imageName(p.name) !== imageName(want.image)) return [`${runs}, not the docker image ${e(want.image)}@${want.digest}`];
  if (p.version !== want.digest)
    return [
      `it runs ${e(p.name)} ${p.version ? `by digest ${e(p.version)}` : 'without a digest (whatever the tag points to)'}, not the reviewed ${want.digest}`,
    ];
  // The reviewed image, running another program of it.
  if (facts.argv?.some((a) => a === '--entrypoint' || a.startsWith('--entrypoint='))) return ["it replaces the image's entrypoint (--entrypoint)"];
  return [];
}

/** PEP 503: names compare lowercased, with runs of - _ . as one -. */
function pypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** An image without its tag (registry ports keep their colon). */
function imageName(image: string): string {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? image.slice(0, colon) : image;
}

function shown(argv: readonly string[]): string {
  return argv.map((a) => e(a)).join(' ');
}

function problem(text: string | undefined): string {
  return text ? e(text) : 'it gave no answer';
}
