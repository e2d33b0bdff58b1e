// axe-core on every screen, light and dark, at 1280×800 and 800×600: no serious or critical violation.
// The same walk checks that no badge or chip overlaps its neighbours, runs out of its row or is cut.
// CS_UI_SHOTS=1 also saves a screenshot of each stop in the test's output folder.
import { expect, test } from './support/fixtures.js';
import { axeProblems, type AxeProblem } from './support/axe.js';
import { badgeProblems } from './support/overlap.js';
import { SCREENS, SIZES, startTour, THEMES, walk, type Tour } from './support/tour.js';

let tour: Tour;
test.beforeEach(async () => {
  tour = await startTour();
});
test.afterEach(async () => tour?.stop());

for (const size of SIZES) {
  for (const theme of THEMES) {
    test(`every screen, ${theme}, ${size.width}×${size.height}: axe finds nothing serious, no badge overlaps`, async ({ page }, testInfo) => {
      test.setTimeout(120_000);
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: theme });
      const found: Record<string, AxeProblem[]> = {};
      const overlaps: Record<string, string[]> = {};
      const screens: string[] = [];
      await walk(page, tour, async (screen) => {
        screens.push(screen);
        if (process.env.CS_UI_SHOTS) await page.screenshot({ path: testInfo.outputPath(`${screen}-${theme}-${size.width}.png`), fullPage: false });
        const problems = await axeProblems(page);
        if (problems.length) found[screen] = problems;
        const badges = await badgeProblems(page);
        if (badges.length) overlaps[screen] = badges;
      });
      expect(screens).toEqual(SCREENS.filter((s) => size.width <= 900 || s !== 'queue-list'));
      expect({ axe: found, badges: overlaps }).toEqual({ axe: {}, badges: {} });
    });
  }
}
