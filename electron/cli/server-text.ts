// How the CLI prints what a person decides on: the exact command line argument by argument, the tools
// it listed, and held changes, each with the hash the decision will be bound to. Everything a server or
// a config supplied is escaped.
import type { LaunchView, ServerChanges, ServerView } from '../../shared/api.js';
import { escapeControl as e } from '../../shared/escape.js';
import { summarizeLimits } from '../../shared/limits.js';
import { catalogueLines } from '../../shared/catalogue-text.js';
import { hintStanding, type HintName } from '../../shared/call-warnings.js';
import type { EffectiveHints } from '../../shared/tool.js';

/** A hint as Countersign reads it: an untrusted server's reassuring claim is named, and not used. */
function hintWord(hints: EffectiveHints, name: HintName, trusted: boolean, yes: string, no: string): string {
  const standing = hintStanding(hints, name, trusted);
  const word = standing.value ? yes : no;
  return standing.basis === 'ignored' ? `${word} (says ${standing.value ? no : yes}; not checked)` : word;
}

export function launchText(name: string, launch: LaunchView): string {
  const lines: string[] = [];
  if (launch.commandLine) {
    lines.push(`'${e(name)}' runs exactly:`);
    launch.commandLine.forEach((arg, i) => lines.push(`  [${i}] ${e(arg)}`));
    if (launch.cwd) lines.push(`  in ${e(launch.cwd)}`);
    if (launch.envNames.length) lines.push(`  with environment variables: ${launch.envNames.map((n) => e(n)).join(', ')} (values not shown)`);
    lines.push(`  limits: ${launch.limits ? e(summarizeLimits(launch.limits)) : 'none (it reaches your files and the network as you do)'}`);
  } else {
    lines.push(`'${e(name)}' is a remote server at ${e(launch.url ?? '')}; nothing runs on this machine.`);
    if (launch.headerNames.length) lines.push(`  with headers: ${launch.headerNames.map((n) => e(n)).join(', ')} (values not shown)`);
  }
  lines.push(
    `  launch hash ${launch.hash}${launch.approved ? ` (approved${launch.approvedBy === 'policy' ? ' by the team policy' : ''})` : ' (not approved)'}`,
  );
  return lines.join('\n') + '\n';
}

export function toolsText(server: ServerView): string {
  if (!server.tools.length) return 'No tool listing yet (no client has run it).\n';
  const lines = [`Tools as last listed (listing hash ${server.listingHash ?? 'none'}):`];
  for (const t of server.tools) {
    const flags = [
      hintWord(t.hints, 'readOnlyHint', server.trusted, 'read-only', 'may change data'),
      hintWord(t.hints, 'openWorldHint', server.trusted, 'open world', 'closed world'),
      t.state,
    ];
    lines.push(`  ${e(t.definition.name)}  (${flags.join(', ')})${t.findings.length ? `  ${t.findings.length} warning(s)` : ''}`);
  }
  return lines.join('\n') + '\n';
}

/** What the organization's managed policy decides for this server, and why it is blocked. */
export function managedText(server: ServerView): string {
  const lines = server.blockedBy ? [`BLOCKED: ${e(server.blockedBy)}`] : [];
  for (const m of server.managed ?? []) if (!m.startsWith('blocked')) lines.push(`Managed by your organization: ${e(m)}`);
  return lines.length ? lines.join('\n') + '\n' : '';
}

export function pinText(server: ServerView): string {
  const pin = server.pin;
  if (!pin) return 'Not pinned.\n';
  const lines = [
    `Pinned${pin.version ? ` to version ${e(pin.version)}` : ''}${pin.managed ? ' (managed by your organization; only it can unpin)' : pin.by === 'policy' ? ' by the team policy' : ''}; definitions ${pin.definitionsHash}`,
  ];
  if (pin.package) {
    lines.push(`  package ${e(pin.package.spec)} (${pin.package.kind})`);
    if (pin.package.contentHash) lines.push(`  content ${pin.package.contentHash}${pin.package.installedAt ? ` (${e(pin.package.installedAt)})` : ''}`);
    for (const i of pin.package.integrity ?? []) lines.push(`  registry integrity ${e(i)}`);
  }
  for (const q of server.quarantine ?? []) lines.push(`  QUARANTINED: ${e(q)}`);
  return lines.join('\n') + '\n';
}

export function changesText(changes: ServerChanges): string {
  const lines = [`Changes to '${e(changes.server)}' waiting for review:`];
  if (changes.version) lines.push(`  version ${e(changes.version.from ?? 'none')} → ${e(changes.version.to ?? 'none')} (${changes.version.kind})`);
  if (changes.instructions) lines.push('  its instructions to the model changed');
  if (changes.identityHash) lines.push(`  identity hash ${changes.identityHash}`);
  for (const t of changes.tools) {
    lines.push(`  ${t.kind.padEnd(7)} ${e(t.name)}${t.rejected ? ' (rejected)' : ''}  hash ${t.hash}`);
    const d = t.diff.description;
    if (Array.isArray(d)) {
      const removed = d
        .filter((p) => !p.added)
        .map((p) => p.value)
        .join('');
      const added = d
        .filter((p) => !p.removed)
        .map((p) => p.value)
        .join('');
      lines.push(`      description was: ${e(removed)}`, `      description now: ${e(added)}`);
    } else if (d) lines.push('      description changed (too large to show here)');
    for (const s of [...t.diff.schemas.inputSchema, ...t.diff.schemas.outputSchema]) lines.push(`      schema ${e(JSON.stringify(s))}`);
    for (const a of t.diff.annotations) lines.push(`      annotation ${e(JSON.stringify(a))}`);
    for (const f of t.findings) lines.push(`      ${f.severity}: ${e(f.message)}`);
  }
  return lines.join('\n') + '\n';
}

/** A command not on PATH, and a start past 10 s: how long, and what usually causes it. */
/** The organization's catalogue: its trust, what differs from the entry, and a managed restriction's refusal. */
export function catalogueText(server: ServerView): string {
  const lines = catalogueLines(server.catalogue);
  return lines.length ? lines.map((l) => e(l)).join('\n') + '\n' : '';
}

export function slowStartText(server: ServerView): string {
  const missing = server.commandNotFound ? `It will not start: ${e(server.commandNotFound)}\n` : '';
  const slow = server.slowStart;
  if (!slow) return missing;
  return (
    missing +
    [
      `Its last start took ${Math.round(slow.ms / 1000)} s to answer (clients often give up after 60 s). What usually causes it:`,
      ...slow.causes.map((c) => `  - ${e(c)}`),
    ].join('\n') +
    '\n'
  );
}
