// Honest cards: what a call does leads, an untrusted server's claims never reassure, the exfiltration
// line counts the bytes that could leave and only for open-world tools, and a server that takes another
// server's name says so on the card. Each against a real `countersign serve`, real servers and a real
// client. `CS_CARD_SHOTS=1` saves each card state at 1280×800 and 800×600 to test-results/.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { FIXTURE, NODE, ROOT } from '../test/helpers/paths.js';
import { formatBytes } from '../shared/call-targets.js';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

const CLAIMS = `${ROOT}test/fixtures/claims-server.mjs`;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
];

let world: World | undefined;
const extra: string[] = [];
test.afterEach(async () => {
  await world?.stop();
  for (const dir of extra.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const card = (page: Page, tool: string) => page.getByRole('option').filter({ hasText: tool });
const chips = (c: Locator) => c.getByRole('list', { name: 'About this call' }).getByRole('listitem');
const detail = (page: Page) => page.getByRole('region', { name: 'Call detail' });
const lines = (page: Page) => detail(page).getByRole('list', { name: 'About this call' }).getByRole('listitem');

/**
 * At each size: the card's first chip is whole (not cut by the card's edge) and the detail opens with
 * its first line in view; with CS_CARD_SHOTS set, the list and the detail are saved.
 */
async function lookAtSizes(page: Page, tool: string, name: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    const c = card(page, tool);
    if (size.width < 900 && (await detail(page).isVisible())) await page.getByRole('button', { name: '← Back to the queue' }).click();
    await expect(c).toBeVisible();
    if (process.env.CS_CARD_SHOTS) {
      mkdirSync('test-results', { recursive: true });
      await page.screenshot({ path: `test-results/cards-${name}-${size.width}x${size.height}.png` });
    }
    const box = (await c.boundingBox())!;
    const first = (await chips(c).first().boundingBox())!;
    expect(first.x + first.width, `the first chip fits the card at ${size.width}×${size.height}`).toBeLessThanOrEqual(box.x + box.width);
    await c.click();
    await expect(lines(page).first()).toBeInViewport();
    if (process.env.CS_CARD_SHOTS && size.width < 900) await page.screenshot({ path: `test-results/cards-${name}-${size.width}x${size.height}-detail.png` });
  }
}

test('an untrusted delete_all that claims to only read is treated as able to delete, the claim beside it, unchecked', async ({ page }) => {
  const notes = mkdtempSync(join(tmpdir(), 'cs-e2e-notes-'));
  extra.push(notes);
  writeFileSync(join(notes, 'a.md'), 'keep me');
  world = await startWorld({ servers: { notes: { command: NODE, args: [CLAIMS], env: { CLAIMS_DIR: notes } } } });
  await world.openUi(page);
  const client = await world.connect('notes');
  await client.listTools();
  const call = client.callTool({ name: 'delete_all', arguments: {} });

  const c = card(page, 'delete_all');
  await expect(c).toBeVisible();
  // The server's title is shown as its claim, never as what the tool is.
  await expect(c).toContainText('“View notes (safe)” (server’s title, not checked)');
  const first = chips(c).first();
  await expect(first).toContainText('May change or delete data');
  await expect(first).toContainText('not checked: “only reads”');
  await expect(first).toHaveClass(/chip-warning/);
  await expect(chips(c)).not.toHaveText([/^Says it only reads$/]);

  await c.click();
  await expect(lines(page).first()).toContainText('Treated as able to change or delete data');
  await expect(lines(page).first()).toContainText('It says it only reads — not checked, because you have not trusted notes');
  // No line takes the claim as its headline, and the other claims are stated as unchecked too.
  await expect(detail(page)).not.toContainText('notes says this only reads');
  await expect(detail(page)).toContainText('Title supplied by the server, not checked: “View notes (safe)”');
  await page.getByRole('button', { name: /^Show \d+ more/ }).click();
  await expect(lines(page).filter({ hasText: 'Treated as able to reach outside this machine' })).toContainText(
    'It says it stays on this machine — not checked',
  );
  await expect(lines(page).filter({ hasText: 'Never retried on its own' })).toContainText('It says repeating it has no further effect — not checked');
  await lookAtSizes(page, 'delete_all', 'untrusted-read-only-claim');

  await detail(page).getByRole('button', { name: /^Deny/ }).click();
  expect((await call).isError).toBe(true);
  expect(existsSync(join(notes, 'a.md'))).toBe(true);
});

test('a local write after a read says what it writes, with the bytes of its content, and no exfiltration headline', async ({ page }) => {
  world = await startWorld({ files: { 'notes.md': '# Notes\n' } });
  await world.openUi(page);
  const client = await world.connect();
  const read = client.callTool({ name: 'read_text_file', arguments: { path: join(world.scratch, 'notes.md') } });
  const pending = await world.broker.waitForPending((p) => p.tool === 'read_text_file');
  await world.broker.api('decide', pending.id, { kind: 'allow-once' });
  await read;

  const target = join(world.scratch, 'out.txt');
  const content = 'thirty bytes of plain content.';
  expect(Buffer.byteLength(content)).toBe(30);
  const call = client.callTool({ name: 'write_file', arguments: { path: target, content } });
  const c = card(page, 'write_file');
  await expect(c).toBeVisible();
  await expect(chips(c).first()).toHaveText('Creates out.txt (30 B)');
  for (const chip of await chips(c).all()) await expect(chip).not.toHaveText(/send data out|Data can leave|104 B/i);

  await c.click();
  await expect(lines(page).first()).toContainText('Creates out.txt (30 B)');
  await expect(lines(page).first()).toContainText('This call');
  // The cautious default stays (the server is not trusted), ranked after what the call does, and it
  // counts the argument values that could leave, not the JSON around them.
  const outside = lines(page).filter({ hasText: 'Treated as able to reach outside this machine' });
  const carried = formatBytes(Buffer.byteLength(target) + 30);
  await expect(outside).toContainText(`This agent read notes.md earlier: if the claim is wrong, the ${carried} this call carries could leave.`);
  await expect(detail(page)).not.toContainText('Sends');
  await lookAtSizes(page, 'write_file', 'write-after-read');

  await detail(page)
    .getByRole('button', { name: /^Approve/ })
    .click();
  expect((await call).isError).toBeFalsy();
});

test('a read on a trusted server shows what it does, and no warning', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-e2e-policy-'));
  extra.push(dir);
  const policy = join(dir, 'policy.json');
  // The team policy makes every call of `docs` ask, so its read shows as a card.
  writeFileSync(policy, JSON.stringify({ version: 1, alwaysAsk: [{ server: 'docs', tool: '*' }] }));
  world = await startWorld({ servers: { docs: { command: NODE, args: [CLAIMS] } }, trusted: ['docs'], env: { COUNTERSIGN_POLICY: policy } });
  await world.openUi(page);
  const client = await world.connect('docs');
  await client.listTools();
  const call = client.callTool({ name: 'lookup_docs', arguments: { word: 'sandbox' } });

  const c = card(page, 'lookup_docs');
  await expect(c).toBeVisible();
  await expect(c).toContainText('Trusted');
  await expect(chips(c)).toHaveText(['Only reads']);
  await expect(c.locator('.chip-warning, .chip-danger')).toHaveCount(0);

  await c.click();
  await expect(lines(page).first()).toContainText('Only reads');
  await expect(lines(page).first()).toContainText('Server says (you trust it)');
  await expect(detail(page).locator('.sev-bg-warning, .sev-bg-danger')).toHaveCount(0);
  await expect(detail(page)).not.toContainText(/Warning|Danger|may change data/i);
  await lookAtSizes(page, 'lookup_docs', 'trusted-read');

  await detail(page)
    .getByRole('button', { name: /^Approve/ })
    .click();
  expect((await call).isError).toBeFalsy();
});

test('an open-world call after a local read leads with the bytes that could leave', async ({ page }) => {
  world = await startWorld({
    files: { 'notes.md': '# Notes\nTOKEN=1\n' },
    servers: { web: { command: NODE, args: [FIXTURE, 'web'] } },
    trusted: ['fs'],
  });
  await world.openUi(page);
  const fs = await world.connect();
  const web = await world.connect('web');
  // The trusted filesystem's read runs without a prompt, and marks this agent as having read local data.
  expect((await fs.callTool({ name: 'read_text_file', arguments: { path: join(world.scratch, 'notes.md') } })).isError).toBeFalsy();

  const url = 'https://collector.example.net/in';
  const body = 'é'.repeat(20);
  const call = web.callTool({ name: 'post_url', arguments: { url, body } });
  const bytes = formatBytes(Buffer.byteLength(url) + Buffer.byteLength(body));
  expect(bytes).not.toBe(formatBytes(Buffer.byteLength(JSON.stringify({ url, body }))));
  const c = card(page, 'post_url');
  await expect(c).toBeVisible();
  await expect(chips(c).first()).toHaveText(`Data can leave (${bytes})`);
  await expect(chips(c).first()).toHaveClass(/chip-danger/);

  await c.click();
  await expect(lines(page).first()).toContainText(`Sends ${bytes} to an open-world tool after reading notes.md`);
  await lookAtSizes(page, 'post_url', 'open-world-after-read');

  await detail(page).getByRole('button', { name: /^Deny/ }).click();
  expect((await call).isError).toBe(true);
});

test('a server that calls itself by another configured server’s name says so on its cards', async ({ page }) => {
  world = await startWorld({ servers: { notes: { command: NODE, args: [CLAIMS], env: { CLAIMS_SERVER_NAME: 'fs' } } } });
  await world.openUi(page);
  const client = await world.connect('notes');
  await client.listTools();
  const call = client.callTool({ name: 'bump', arguments: { counter: join(world.scratch, 'count.txt') } });

  const c = card(page, 'bump');
  await expect(c).toBeVisible();
  const chip = chips(c).filter({ hasText: "Calls itself 'fs'" });
  await expect(chip).toHaveCount(1);
  await expect(chip).toHaveClass(/chip-danger/);

  await c.click();
  await expect(lines(page).filter({ hasText: "This server calls itself 'fs', the name of another configured server" })).toHaveCount(1);
  await lookAtSizes(page, 'bump', 'impersonation');

  await detail(page).getByRole('button', { name: /^Deny/ }).click();
  expect((await call).isError).toBe(true);
});
