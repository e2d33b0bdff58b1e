// Preloaded into a measured process (`node --require bench/peak-rss.cjs …`): at exit it writes its peak
// resident set (VmHWM, kB) to fd 3, so the bench can read the peak of a process that ends quickly.
// Linux only; elsewhere it writes nothing and the bench prints n/a.
const fs = require('node:fs');

process.on('exit', () => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) fs.writeSync(3, `${m[1]}\n`);
  } catch {
    // No /proc, or fd 3 is not ours: nothing to report.
  }
});
