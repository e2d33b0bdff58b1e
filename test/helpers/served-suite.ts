// One `countersign serve` for a whole describe block: configured (and trusted) before the first test,
// stopped after the last, its data dir and the fixtures' own folders removed.
import { afterAll, beforeAll } from 'vitest';
import type { ServerConfig } from '../../shared/api.js';
import { configure, makeDataDir, removeDir, startServe, type TestBroker } from './broker-harness.js';

export function serveForSuite(servers: Record<string, ServerConfig>, trusted: string[], dirs: string[], ready: (broker: TestBroker) => void): void {
  let broker: TestBroker | undefined;
  let dataDir: string | undefined;
  beforeAll(async () => {
    dataDir = makeDataDir();
    configure(dataDir, servers, trusted);
    broker = await startServe(dataDir);
    ready(broker);
  });
  afterAll(async () => {
    try {
      await broker?.stop();
    } finally {
      if (dataDir) removeDir(dataDir);
      for (const dir of dirs) removeDir(dir);
    }
  });
}
