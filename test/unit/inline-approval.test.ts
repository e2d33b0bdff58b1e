import { describe, expect, it } from 'vitest';
import { inlineAnswer, notInlineBecause } from '../../electron/broker/inline-approval.js';

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
    expect(notInlineBecause({ ...base, arguments: { path: '/a', content: Array.from({ length: 12 }, () => 'x').join('\n') } })).toMatch(/more than a few lines/);
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
});
