// Invisible characters on a real card: a sample of the classes issue 22 names (default-ignorable,
// format, control, bidi, separators, odd spaces), in a real call's arguments through a real
// `countersign serve`, shows each as a mark naming its code point, in Chromium's own rendering.
import { join } from 'node:path';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

// The three that once hid on the card first, then one or more of each class.
const SAMPLE = [
  0x00ad, 0x034f, 0x3164, 0x115f, 0xffa0, 0x180e, 0x200b, 0x2060, 0xfeff, 0x202e, 0x2066, 0x061c, 0xfe01, 0xe0041, 0xe0080, 0x2028, 0x0085, 0x001b, 0x00a0,
  0x3000, 0x206a, 0x1d173,
];
const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

let world: World;
test.beforeEach(async () => {
  world = await startWorld();
});
test.afterEach(async () => world?.stop());

test("each invisible character in a call's arguments is a visible mark on the card", async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const content = SAMPLE.map((cp) => `x${String.fromCodePoint(cp)}`).join('') + 'x';
  const call = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'marks.txt'), content } });

  const detail = page.getByRole('region', { name: 'Call detail' });
  const tree = detail.getByRole('list', { name: 'arguments as a tree' });
  await expect(tree).toBeVisible();
  const marks = tree.locator('.mark-ctl');
  await expect(marks).toHaveCount(SAMPLE.length);
  const titles = await marks.evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
  expect(titles.map((t) => t.split(':')[0])).toEqual(SAMPLE.map(hex));
  // What the browser shows around the marks is the letters only.
  const shown = await tree
    .locator('.mark-ctl')
    .first()
    .evaluate((el) => el.parentElement?.textContent ?? '');
  expect(shown).not.toMatch(/[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zl}\p{Zp}\p{Cc}]/u);

  await detail.getByRole('button', { name: /^Deny/ }).click();
  expect((await call).isError).toBe(true);
});
