// Badges and chips never overlap what is next to them, never run out of their row, and are never cut:
// each one's box is compared with its neighbours' (its siblings', and its parents' siblings up to the row).
import type { Page } from '@playwright/test';

export const BADGES = '.badge, .chip, .nav-count, .count-pill, .source-tag, .scan-tag';

export async function badgeProblems(page: Page): Promise<string[]> {
  // Rows that measure themselves (ChipRow, the card's clock) settle within a frame of a resize.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return page.evaluate((selector) => {
    const SKIP = '.clock-measure, .chip-measure, .chip-hidden, .sr-only';
    const shown = (el: Element) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden' && !el.matches(SKIP);
    };
    const name = (el: Element) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
    const problems: string[] = [];
    for (const badge of document.querySelectorAll(selector)) {
      if (!shown(badge)) continue;
      const b = badge.getBoundingClientRect();
      let node: Element = badge;
      for (let depth = 0; depth < 3 && node.parentElement; depth++, node = node.parentElement) {
        for (const sib of node.parentElement.children) {
          if (sib === node || !shown(sib)) continue;
          // Line by line: text that wraps around a badge has a bounding box around it, but no line under it.
          for (const r of sib.getClientRects()) {
            const x = Math.min(b.right, r.right) - Math.max(b.left, r.left);
            const y = Math.min(b.bottom, r.bottom) - Math.max(b.top, r.top);
            if (x > 0.5 && y > 0.5) problems.push(`${name(badge)} overlaps ${name(sib)} (${x.toFixed(1)}×${y.toFixed(1)} px)`);
          }
        }
      }
      const p = badge.parentElement!.getBoundingClientRect();
      if (b.left < p.left - 0.5 || b.right > p.right + 0.5) problems.push(`${name(badge)} runs out of ${name(badge.parentElement!)}`);
      // A squeezed chip is cut on purpose, inside its claim only (ChipRow.tsx).
      if (!badge.matches('.chip-squeezed') && badge.scrollWidth > badge.clientWidth + 1) problems.push(`${name(badge)} is cut`);
    }
    return problems;
  }, BADGES);
}
