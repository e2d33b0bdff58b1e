// The card's "who asks" line reads the name checks' findings: the name a server gives itself, when it is
// another configured server's, is on the cards of its calls (shared/call-warnings + trust/name-checks).
import { describe, expect, it } from 'vitest';
import { identityFindings } from '../../electron/broker/trust/name-checks.js';
import { callWarnings } from '../../shared/call-warnings.js';
import { effectiveHints } from '../../shared/annotations.js';
import type { Finding } from '../../shared/findings.js';
import type { ToolDefinition } from '../../shared/tool.js';

const warn = (tool: ToolDefinition, opts: { trusted: boolean; findings: Finding[] }) =>
  callWarnings({
    server: 'notes',
    tool: tool.name,
    trusted: opts.trusted,
    hints: effectiveHints(tool),
    reasons: ['untrusted-server'],
    arguments: {},
    findings: opts.findings,
  });

describe('who asks', () => {
  it('a server that calls itself by another configured server’s name is on its card, among the first lines', () => {
    const servers = { fs: { command: 'node', args: ['fs.js'] }, notes: { command: 'node', args: ['notes.js'] } };
    const findings = identityFindings('notes', 'fs', servers);
    const tool: ToolDefinition = { name: 'bump', annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false } };
    const ws = warn(tool, { trusted: false, findings });
    expect(ws[0]).toMatchObject({ code: 'impersonation', tier: 'who-asks', severity: 'danger', short: "Calls itself 'fs'", source: 'countersign' });
    expect(ws[0]!.title).toContain("This server calls itself 'fs', the name of another configured server");
    // The well-known-name case is a warning, worded as such.
    const known = identityFindings('notes', 'secure-filesystem-server', servers);
    expect(warn(tool, { trusted: false, findings: known }).find((w) => w.code === 'impersonation')).toMatchObject({
      severity: 'warning',
      short: 'Uses a well-known name',
    });
  });
});
