// `countersign connect <server>` on its own, bundled as one file (dist/connect.mjs): bin/countersign.mjs
// starts it when the command line names `connect`, so the relay each MCP server runs per client loads one
// small module instead of the CLI's entry and its chunks. Anything but a well-formed `connect` (help, a
// usage error, another command that merely mentions the word) goes to the full CLI, which answers as before.
import { resolveDataDir } from '../broker/store/data-dir.js';
import { plainConnect } from './connect-argv.js';
import { runConnect } from './connect.js';

async function main(): Promise<void> {
  const plain = plainConnect(process.argv.slice(2));
  if (!plain) {
    // The full CLI reads process.argv itself. Not a literal import: the bundle must not take it in.
    const cli = new URL('./cli.mjs', import.meta.url).href;
    await import(cli);
    return;
  }
  try {
    process.exitCode = await runConnect(plain.server, resolveDataDir({ flag: plain.dataDir }), { client: plain.client });
  } catch (err) {
    // As runCli reports an unexpected error: one line, and the stack in a file (loaded only on this path).
    const dataDir = resolveDataDir({ flag: plain.dataDir });
    const [{ writeCrashLog }, { VERSION }] = await Promise.all([import('./crash-log.js'), import('../broker/core/version.js')]);
    const file = writeCrashLog(err, 'connect', dataDir, VERSION);
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    process.stderr.write(
      file
        ? `countersign: unexpected error: ${first}. The details are in ${file}; please include them if you report it.\n`
        : `countersign: unexpected error: ${(err as Error).stack ?? String(err)}\n`,
    );
    process.exitCode = 1;
  }
}

await main();
