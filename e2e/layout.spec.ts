// Small windows never hide what is approved: at 1024×640 and 800×600 a card opens on click, and the
// diff's first changed line is in view above the Approve button, without scrolling.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'notes.md': `${lines(40).join('\n')}\n` } });
});
test.afterEach(async () => world?.stop());

for (const size of [
  { width: 1024, height: 640 },
  { width: 800, height: 600 },
]) {
  test(`at ${size.width}×${size.height} the diff's first line is visible above Approve`, async ({ page }) => {
    await page.setViewportSize(size);
    await world.openUi(page);
    const client = await world.connect();
    const next = lines(40).map((l) => (l === 'line 2' ? 'line 2 rewritten' : l));
    const call = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'notes.md'), content: `${next.join('\n')}\n` } });

    const card = page.getByRole('option').filter({ hasText: 'write_file' });
    await card.click();
    const detail = page.getByRole('region', { name: 'Call detail' });
    await expect(detail.getByRole('heading', { name: 'write_file' })).toBeVisible();
    const diff = detail.getByRole('region', { name: 'Changes from Current file to Proposed' });
    const first = diff.locator('[data-kind="del"], [data-kind="add"]').first();
    await expect(first).toHaveText(/line 2/);
    if (process.env.CS_LAYOUT_SHOTS) await page.screenshot({ path: `test-results/layout-${size.width}x${size.height}.png` });
    await expect(first).toBeInViewport();
    const approve = detail.getByRole('button', { name: /^Approve/ });
    await expect(approve).toBeInViewport();
    const line = (await first.boundingBox())!;
    const button = (await approve.boundingBox())!;
    expect(line.y + line.height).toBeLessThanOrEqual(button.y);
    // Nothing covers it: the line itself is what is drawn at its middle.
    const hit = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x!, y!)?.closest('[data-kind]')?.textContent ?? '',
      [line.x + 60, line.y + line.height / 2],
    );
    expect(hit).toMatch(/line 2/);

    await approve.click();
    expect((await call).isError).toBeFalsy();
  });
}

test('move_file shows source and target, whether the target exists, and sizes', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 640 });
  writeFileSync(join(world.scratch, 'draft.md'), 'x'.repeat(2100));
  writeFileSync(join(world.scratch, 'final.md'), 'y'.repeat(512));
  await world.openUi(page);
  const client = await world.connect();
  const source = join(world.scratch, 'draft.md');
  const call = client.callTool({ name: 'move_file', arguments: { source, destination: join(world.scratch, 'final.md') } });
  await page.getByRole('option').filter({ hasText: 'move_file' }).click();
  const preview = page.getByRole('region', { name: 'Call detail' }).getByRole('region', { name: 'Preview' });
  await expect(preview.getByRole('heading', { name: 'Preview of the move' })).toBeVisible();
  await expect(preview).toContainText('draft.md (a file of 2.1 kB)');
  await expect(preview).toContainText('final.md (a file of 512 B)');
  await expect(preview.getByText('The target exists: it may be replaced')).toBeInViewport();
  await page.getByRole('button', { name: /^Deny/ }).click();
  expect((await call).isError).toBe(true);
  expect(existsSync(source)).toBe(true);

  const fresh = join(world.scratch, 'renamed.md');
  const second = client.callTool({ name: 'move_file', arguments: { source, destination: fresh } });
  await page.getByRole('option').filter({ hasText: 'move_file' }).click();
  await expect(preview.getByText('New path')).toBeVisible();
  await expect(preview).toContainText('renamed.md (nothing there)');
  await page.getByRole('button', { name: /^Approve/ }).click();
  expect((await second).isError).toBeFalsy();
  expect(existsSync(fresh)).toBe(true);
});
