// Settings → Audit export in a real browser against a real `serve`: the person points the export at a
// real OTLP receiver (test/helpers/otlp-receiver.ts), with a header whose value is never shown back, and
// sees the destination take the log (state ok, cursor moving, backlog 0).
import { expect, test } from './support/fixtures.js';
import { navButton } from './support/tour.js';
import { startWorld, type World } from './support/world.js';
import { startOtlpReceiver, type OtlpReceiver } from '../test/helpers/otlp-receiver.js';

let world: World | undefined;
let receiver: OtlpReceiver | undefined;
test.afterEach(async () => {
  await world?.stop();
  await receiver?.close();
});

test('a destination set in Settings takes the log; its header value is never shown back', async ({ page }) => {
  test.setTimeout(120_000);
  receiver = await startOtlpReceiver();
  world = await startWorld();
  await world.openUi(page);
  await navButton(page, 'Settings').click();
  const section = page.getByRole('region', { name: 'Audit export' });
  await expect(section).toContainText('The audit log is not exported.');
  await section.getByLabel(/OpenTelemetry/).check();
  await section.getByLabel('Endpoint').fill(receiver.url);
  await section.getByLabel('Protocol').selectOption('http/json');
  await section.getByRole('button', { name: 'Add a header' }).click();
  await section.getByLabel('Header name').fill('x-token');
  await section.getByLabel('Header value').fill('s3cret-e2e');
  await section.getByRole('button', { name: 'Export here' }).click();
  await expect(section.getByRole('status')).toContainText('Saved');
  const destination = section.getByRole('list', { name: 'Export destinations' });
  await expect(destination).toContainText(`OTLP http/json http://127.0.0.1:${receiver.port}/v1/logs: ok`);
  await expect(destination).toContainText(/exported up to #[1-9]\d*, backlog 0\)/, { timeout: 60_000 });
  expect(receiver.records.length).toBeGreaterThan(0);
  expect(receiver.records[0]!.headers['x-token']).toBe('s3cret-e2e');
  await expect(section.getByLabel(/New value for x-token/)).toHaveValue('');
  expect(await page.content()).not.toContain('s3cret-e2e');
});
