// axe-core on the page as it is: every rule axe runs by default (WCAG 2.x A/AA and best practices);
// a screen passes with no serious or critical violation. The message lists each one with its targets.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

export interface AxeProblem {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

export async function axeProblems(page: Page): Promise<AxeProblem[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.map((n) => `${n.target.join(' ')}${n.failureSummary ? ` (${n.failureSummary.replace(/\s+/g, ' ').slice(0, 200)})` : ''}`),
    }));
}
