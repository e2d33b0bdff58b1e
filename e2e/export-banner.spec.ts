// The audit export's destination down shows a banner (from the status warnings), which goes away once
// the collector takes the entries again. A real `serve`, a real OTLP receiver (test/helpers/otlp-receiver.ts).
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';
import { startOtlpReceiver, type OtlpReceiver } from '../test/helpers/otlp-receiver.js';

let world: World | undefined;
let receiver: OtlpReceiver | undefined;
test.afterEach(async () => {
  await world?.stop();
  await receiver?.close();
});

test('a collector that refuses the export shows a banner that says nothing is lost; it goes once the collector is back', async ({ page }) => {
  test.setTimeout(120_000);
  receiver = await startOtlpReceiver();
  receiver.setMode('unavailable');
  world = await startWorld();
  await world.broker.api('updateSettings', { auditExport: { otlp: { endpoint: receiver.url, protocol: 'http/protobuf' } } });
  await world.openUi(page);
  const banner = page.locator('.banner', { hasText: /The audit export to .* is failing/ });
  // Three refused sends (about 3 s of backoff) make it "down": waited for as an event, not a margin.
  await expect(banner).toBeVisible({ timeout: 60_000 });
  await expect(banner).toContainText('Nothing is lost');
  receiver.setMode('ok');
  await expect(banner).toHaveCount(0, { timeout: 90_000 });
  expect(receiver.seqs().length).toBeGreaterThan(0);
});
