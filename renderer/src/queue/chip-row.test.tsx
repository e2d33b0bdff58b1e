// @vitest-environment happy-dom
// The card's chip row under a stubbed layout (happy-dom lays nothing out): chips that do not fit whole
// are hidden and counted in "+N more"; a first chip wider than the row is squeezed, never dropped.
import { cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Warning } from '../lib/warnings';
import { ChipRow } from './ChipRow';

const PX_PER_CHAR = 7;
let rowWidth = 300;

beforeEach(() => {
  // Each chip is as wide as its text (7 px a character, 20 px of padding); the row is `rowWidth` wide.
  vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(function (this: HTMLElement) {
    const width = this.classList.contains('chip') ? (this.textContent ?? '').length * PX_PER_CHAR + 20 : 0;
    return { left: 0, top: 0, right: width, bottom: 20, width, height: 20, x: 0, y: 0, toJSON: () => ({}) } as DOMRect;
  });
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockImplementation(function (this: HTMLElement) {
    return this.classList.contains('chip-row') ? rowWidth : 0;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  cleanup();
});

const line = (key: string, short: string, claim?: string): Warning => ({
  key,
  code: 'changes-data',
  source: 'default',
  tier: 'assumed',
  severity: 'warning',
  title: short,
  short,
  ...(claim ? { claim: { text: claim, short: claim } } : {}),
});

const shown = (container: HTMLElement) => Array.from(container.querySelectorAll('.card-warnings > .chip:not([aria-hidden])')).map((c) => c.textContent);
const more = (container: HTMLElement) => container.querySelector('.chip-more:not(.chip-measure)')?.textContent;

describe('ChipRow', () => {
  it('shows the chips that fit whole and counts the rest with the lines that were never headline', () => {
    rowWidth = 300;
    // 20 chars = 160 px, 10 = 90 px, 12 = 104 px; "+3 more" = 69 px.
    const { container } = render(
      <ChipRow headline={[line('a', 'a'.repeat(20)), line('b', 'b'.repeat(10)), line('c', 'c'.repeat(12))]} moreNotable={1} label="About this call" />,
    );
    expect(shown(container)).toEqual(['a'.repeat(20)]);
    expect(more(container)).toBe('+3 more');
  });

  it('shows them all, with no "+N more", when they fit', () => {
    rowWidth = 600;
    const { container } = render(<ChipRow headline={[line('a', 'a'.repeat(20)), line('b', 'b'.repeat(10))]} moreNotable={0} label="About this call" />);
    expect(shown(container)).toEqual(['a'.repeat(20), 'b'.repeat(10)]);
    expect(more(container)).toBeUndefined();
  });

  it('squeezes a first chip wider than the row rather than dropping it; its claim reads "not checked" first', () => {
    rowWidth = 200;
    const { container } = render(
      <ChipRow headline={[line('a', 'May change or delete data', 'not checked: “only reads”'), line('b', 'bbb')]} moreNotable={0} label="About this call" />,
    );
    const first = container.querySelector('.card-warnings > .chip')!;
    expect(first.className).toContain('chip-squeezed');
    expect(first.getAttribute('aria-hidden')).toBeNull();
    expect(first.textContent).toBe('May change or delete datanot checked: “only reads”');
    expect(more(container)).toBe('+1 more');
  });
});
