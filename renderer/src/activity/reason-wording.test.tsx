// @vitest-environment happy-dom
// Every code the broker can store or put on a card reads as words from shared/reasons.ts, never as the
// bare code. The codes come from its tables, which are Records over ReasonCode, RefusalCode and
// FindingCode: a new code without words does not typecheck.
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/api';
import { pendingCallWarnings } from '../../../shared/call-warnings';
import { FINDING_CODES, WORDED_CODES } from '../../../shared/reasons';
import { makeCall } from '../test/fake-api';
import { ActivityRow } from './ActivityRow';

afterEach(cleanup);

const entry = (reasons: string[]): AuditEntry => ({
  seq: 1,
  time: '2026-01-01T00:00:00.000Z',
  server: 'fs',
  tool: 'write_file',
  arguments: {},
  decision: 'deny',
  decidedBy: 'policy',
  reasons,
  durationMs: 0,
  status: 'denied',
  prev: '0'.repeat(64),
  hash: 'a'.repeat(64),
});
// The items of the entry's "Reasons" list.
const reasonItems = () => {
  const dt = [...document.querySelectorAll('dt')].find((d) => d.textContent === 'Reasons');
  return [...(dt?.nextElementSibling?.querySelectorAll('li') ?? [])].map((li) => li.textContent ?? '');
};
const looksLikeACode = (text: string) => /^[a-z]+(?:-[a-z]+)+$/.test(text.trim());

describe('decision wording', () => {
  it('the Activity screen words every reason and refusal code the log stores', async () => {
    const codes = [...WORDED_CODES.reasons, ...WORDED_CODES.refusals];
    expect(codes).toContain('trusted-read-only');
    expect(codes).toContain('undecidable');
    render(
      <ul>
        <ActivityRow entry={entry(codes)} />
      </ul>,
    );
    await userEvent.click(screen.getByRole('button'));
    const items = reasonItems();
    expect(items).toHaveLength(codes.length);
    items.forEach((text, i) => {
      expect(text, codes[i]).not.toBe(codes[i]);
      expect(looksLikeACode(text), `${codes[i]} shows as "${text}"`).toBe(false);
      expect(text.length).toBeGreaterThan(8);
    });
    // All distinct: no two codes read the same.
    expect(new Set(items).size).toBe(items.length);
  });

  it('a code this version does not know says so, and shows it escaped', async () => {
    render(
      <ul>
        <ActivityRow entry={entry(['from-a-newer-version\u202e'])} />
      </ul>,
    );
    await userEvent.click(screen.getByRole('button'));
    expect(reasonItems()).toEqual(['A reason this version does not know (from-a-newer-version\\u202e)']);
  });

  it('every finding code has a card label, not its code', () => {
    const findings = FINDING_CODES.map((code) => ({ code, severity: 'warning' as const, message: `About ${code}.`, excerpt: 'x' }));
    expect(FINDING_CODES).toContain('secret-value');
    const lines = pendingCallWarnings(makeCall({ findings }));
    for (const code of FINDING_CODES) {
      const line = lines.find((w) => w.title === `About ${code}.` || w.detail === `About ${code}.`);
      expect(line, code).toBeDefined();
      expect(line!.short, code).not.toBe(code);
      expect(looksLikeACode(line!.short), `${code} → ${line!.short}`).toBe(false);
    }
  });
});
