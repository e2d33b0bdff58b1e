// The app executable's entry (dist/electron/entry.mjs). A launch with --cli first runs the command line
// with Electron's own Node and exits, before any window, tray or single-instance lock, and without the
// RunAsNode fuse: this is what the installed app's client entries and `countersign` launcher run.
// Anything else is the desktop app (main.mjs). Both load only after this decision.
import { app } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appItself, cliArguments } from './cli-mode.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = cliArguments(process.argv, app.isPackaged);

// Top-level awaits: Electron emits 'ready' only once this module has finished, so main.mjs still runs
// its before-ready setup in time, and a command line never gets to 'ready' at all.
if (cli) {
  // No dock icon for a command (macOS).
  app.dock?.hide();
  const { runInApp } = (await import(new URL('./cli/app-cli.mjs', import.meta.url).href)) as typeof import('./app-cli.js');
  const code = await runInApp(cli, {
    rendererDir: path.join(here, '..', 'renderer'),
    installed: appItself(app.isPackaged, app.isPackaged ? app.getPath('exe') : process.execPath, fileURLToPath(import.meta.url)),
    setChromiumPaths: (dataDir) => {
      // Chromium's own files, should it write any, go where the desktop app keeps them.
      app.setPath('userData', dataDir);
      app.setPath('sessionData', path.join(dataDir, 'chromium'));
    },
  });
  app.exit(code);
} else {
  await import(new URL('./main.mjs', import.meta.url).href);
}
