import { describe, expect, it } from 'vitest';
import { inlineAnswer, inlineMessage, notInlineBecause } from '../../electron/broker/calls/inline-approval.js';
import { splitHeadline } from '../../shared/card-order.js';
import { pendingCallWarnings } from '../../shared/call-warnings.js';
import { effectiveHints } from '../../shared/annotations.js';

const base = { reasons: [], findings: [], arguments: { path: '/tmp/a.txt', content: 'one line' } };
const reason = (code: string) => ({ code, severity: 'warning', message: code }) as never;

describe('inline approval', () => {
  it('offers a short call, and never self-protection, changed definitions, danger findings or long previews', () => {
    expect(notInlineBecause(base)).toBeUndefined();
    expect(notInlineBecause({ ...base, reasons: [reason('protected-path')] })).toMatch(/Countersign's own files/);
    expect(notInlineBecause({ ...base, findings: [{ code: 'protected-path', severity: 'warning', message: 'x' }] as never })).toMatch(/own files/);
    expect(notInlineBecause({ ...base, reasons: [reason('held-for-review')] })).toMatch(/definition changed/);
    expect(notInlineBecause({ ...base, reasons: [reason('definition-changed')] })).toMatch(/definition changed/);
    expect(notInlineBecause({ ...base, findings: [{ code: 'model-instructions', severity: 'danger', message: 'x' }] as never })).toMatch(/dangerous/);
    expect(notInlineBecause({ ...base, arguments: { path: '/a', content: Array.from({ length: 12 }, () => 'x').join('\n') } })).toMatch(
      /more than a few lines/,
    );
    expect(notInlineBecause({ ...base, arguments: { path: '/a', content: 'x'.repeat(700) } })).toMatch(/more than a few lines/);
  });

  it('reads only an explicit approve as approval; cancel leaves the call waiting', () => {
    expect(inlineAnswer({ action: 'accept', content: { decision: 'approve' } })).toEqual({ kind: 'allow-once' });
    expect(inlineAnswer({ action: 'accept', content: { decision: 'deny' } })).toEqual({ kind: 'deny', reason: 'denied in the client' });
    expect(inlineAnswer({ action: 'decline' })).toEqual({ kind: 'deny', reason: 'declined in the client' });
    expect(inlineAnswer({ action: 'cancel' })).toBeUndefined();
    expect(inlineAnswer({ action: 'accept', content: { decision: 'APPROVE' } })).toBeUndefined();
    expect(inlineAnswer({ action: 'accept' })).toBeUndefined();
    expect(inlineAnswer(undefined)).toBeUndefined();
  });

  it("words the form with the queue card's headline: at most three, the rest counted, text escaped", () => {
    const none = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
    const call = {
      server: 'web\u202e',
      tool: 'post\u009b',
      serverTrusted: false,
      arguments: { url: 'https://x.example/\u202e' },
      hints: { ...none, destructiveHint: true, openWorldHint: true, supplied: none },
      reasons: ['no-annotations', 'exfiltration-risk', 'untrusted-server', 'unverified-claims'].map(reason),
      findings: [
        { code: 'embedded-url', severity: 'warning', message: 'The argument contains 1 web address(es).', excerpt: 'x' },
        { code: 'bidi-control', severity: 'warning', message: 'The argument contains 1 bidirectional control character(s).', excerpt: 'x' },
        { code: 'secret-reference', severity: 'warning', message: 'The argument refers to SSH keys (".ssh").', excerpt: 'x' },
      ] as never,
      facts: { localReads: ['/home/u/notes.txt'] },
    };
    const { headline, moreNotable } = splitHeadline(pendingCallWarnings(call));
    const notable = headline.length + moreNotable;
    expect(notable).toBeGreaterThan(3);
    const lines = inlineMessage(call).split('\n');
    const warnings = lines.filter((l) => /^(Danger|Warning|Note|This call): /.test(l));
    expect(warnings).toHaveLength(3);
    headline.forEach((w, i) => expect(warnings[i]).toContain(w.title));
    expect(lines).toContain(`${notable - 3} more to check in Countersign.`);
    expect(lines.join('\n')).not.toMatch(/[\u202e\u009b]/);
    expect(lines[0]).toBe('Approve post\\x9b on web\\u202e?');
  });

  it("words an untrusted server's reassuring claims as the card does: beside the cautious default, unchecked", () => {
    const tool = { name: 'delete_all', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } };
    const call = {
      server: 'notes',
      tool: 'delete_all',
      serverTrusted: false,
      arguments: {},
      hints: effectiveHints(tool),
      reasons: [reason('untrusted-server')],
      findings: [],
    };
    const lines = inlineMessage(call).split('\n');
    expect(lines[2]).toBe(
      'Warning: Treated as able to change or delete data. It says it only reads — not checked, because you have not trusted notes (Cautious default)',
    );
    expect(lines.filter((l) => /only reads/.test(l))).toEqual([lines[2]]);
  });
});
