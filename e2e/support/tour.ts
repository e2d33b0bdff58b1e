// A walk through every screen of the UI with real content: a queue with cards and a diff, a server
// under limits, a client config, activity, a saved rule, settings, and the empty states. Each stop
// calls `visit` with the screen's name once it has settled, so one walk serves axe and screenshots.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import { FILESYSTEM_SERVER, NODE } from '../../test/helpers/paths.js';
import { expect } from './fixtures.js';
import { startWorld, type World } from './world.js';

export const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
] as const;
export const THEMES = ['light', 'dark'] as const;
/** Every stop of the walk, in order ('queue-list' only where the detail covers the list). */
export const SCREENS = [
  'queue-empty',
  'queue-list',
  'queue-detail',
  'servers',
  'clients',
  'activity',
  'activity-undo',
  'settings',
  'servers-empty',
  'queue-no-servers',
];

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);
/** A server name as long as real ones get: the queue card must show it whole at 1280. */
export const LONG_SERVER = 'filesystem-notes';

export interface Tour {
  world: World;
  home: string;
  notes: string;
  stop(): Promise<void>;
}

export async function startTour(): Promise<Tour> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'cs-e2e-tour-')));
  const notes = join(home, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'todo.md'), `${lines(40).join('\n')}\n`);
  const desktop = join(home, '.config/Claude/claude_desktop_config.json');
  mkdirSync(dirname(desktop), { recursive: true });
  writeFileSync(desktop, JSON.stringify({ mcpServers: { notes: { command: NODE, args: [FILESYSTEM_SERVER, notes] } } }, null, 2) + '\n');
  const world = await startWorld({
    files: { 'config.txt': `${lines(30).join('\n')}\n` },
    servers: { [LONG_SERVER]: { command: NODE, args: [FILESYSTEM_SERVER, notes] } },
    env: { HOME: home, XDG_CONFIG_HOME: '' },
  });
  // Tighter limits need no consent: it may read its notes and nothing else, with no network.
  await world.broker.api('setLimits', LONG_SERVER, { network: 'none', filesystem: { read: [notes], write: [] }, passEnv: [] });
  return {
    world,
    home,
    notes,
    async stop() {
      await world.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The nav button of a screen (its name carries counts: "Queue, 2 waiting"). */
export function navButton(page: Page, label: string) {
  return page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: new RegExp(`^${label}`) });
}

export async function walk(page: Page, tour: Tour, visit: (screen: string) => Promise<void>): Promise<void> {
  const { world } = tour;
  const narrow = (page.viewportSize()?.width ?? 1280) <= 900;
  await world.openUi(page);
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Protect the clients you already use' })).toContainText('Found Claude Desktop');
  await visit('queue-empty');

  const fs = await world.connect();
  const next = lines(30).map((l) => (l === 'line 7' ? 'line 7 changed' : l));
  const write = fs.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'config.txt'), content: `${next.join('\n')}\n` } });
  await expect(page.getByRole('option')).toHaveCount(1);
  const notesClient = await world.connect(LONG_SERVER);
  const read = notesClient.callTool({ name: 'read_text_file', arguments: { path: join(tour.notes, 'todo.md') } });
  await expect(page.getByRole('option')).toHaveCount(2);
  await expect(page.getByRole('option').nth(1)).toContainText(LONG_SERVER);
  const detail = page.getByRole('region', { name: 'Call detail' });
  if (narrow) {
    await visit('queue-list');
    await page.getByRole('option').first().click();
  }
  await expect(detail.getByRole('region', { name: 'Changes from Current file to Proposed' })).toBeVisible();
  await visit('queue-detail');

  // A saved rule (Settings lists it) and a denial, for Activity.
  const [first, second] = await world.broker.api<Array<{ id: string; tool: string }>>('listPending');
  const readCall = [first, second].find((c) => c?.tool === 'read_text_file')!;
  const writeCall = [first, second].find((c) => c?.tool === 'write_file')!;
  await world.broker.api('decide', readCall.id, { kind: 'allow-rule', rule: { scope: { kind: 'under', dir: tour.notes }, lifetime: { kind: 'always' } } });
  await world.broker.api('decide', writeCall.id, { kind: 'deny', reason: 'Not now' });
  await world.broker.api('updateSettings', { approvalTimeoutSeconds: 300 }); // "Settings changed", a long badge
  await Promise.allSettled([write, read]);
  await expect(page.getByRole('option')).toHaveCount(0);

  await navButton(page, 'Servers').click();
  await page.getByRole('button', { name: new RegExp(`^${LONG_SERVER}`) }).click();
  await expect(page.getByRole('region', { name: `Server ${LONG_SERVER}` }).getByRole('heading', { name: 'Limits' })).toBeVisible();
  await visit('servers');

  await navButton(page, 'Clients').click();
  await expect(page.getByRole('region', { name: 'Claude Desktop' })).toBeVisible();
  await visit('clients');

  await navButton(page, 'Activity').click();
  const entries = page.getByRole('list', { name: 'Audit log' }).getByRole('listitem');
  await expect(entries.filter({ hasText: 'write_file' }).first()).toBeVisible();
  await entries.filter({ hasText: 'write_file' }).first().getByRole('button').first().click();
  await visit('activity');

  // An approved rewrite, and the preview of its undo: what each file goes back to.
  const rewrite = lines(30)
    .filter((l) => l !== 'line 9')
    .map((l) => (l === 'line 12' ? 'line 12, rewritten by the agent' : l));
  const approved = fs.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'config.txt'), content: `${rewrite.join('\n')}\n` } });
  const held = await world.broker.waitForPending((c) => c.tool === 'write_file');
  await world.broker.api('decide', held.id, { kind: 'allow-once' });
  await approved;
  await page
    .getByRole('button', { name: /^Undo what #\d+ changed$/ })
    .first()
    .click();
  const review = page.getByRole('region', { name: /^Undo what #\d+ changed: write_file on fs$/ });
  await expect(review.getByRole('region', { name: 'Changes from Now to After undo' })).toBeVisible();
  await visit('activity-undo');
  await review.getByRole('button', { name: 'Cancel' }).click();

  await navButton(page, 'Settings').click();
  await expect(page.getByRole('heading', { name: 'Saved rules' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Saved rules' })).toContainText('read_text_file');
  await visit('settings');

  for (const name of ['fs', LONG_SERVER]) await world.broker.api('removeServer', name);
  await navButton(page, 'Servers').click();
  await expect(page.getByRole('heading', { name: 'No servers yet' })).toBeVisible();
  await visit('servers-empty');
  await navButton(page, 'Queue').click();
  await expect(page.getByRole('heading', { name: 'Nothing to approve yet' })).toBeVisible();
  await visit('queue-no-servers');
}
