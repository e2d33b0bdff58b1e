// LogPathAnchor: the folders of a path kept open, their ctimes trusted once a look at the path vouched for
// them (and they were settled); any entry made, removed or renamed on the path ends that trust.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogPathAnchor, SETTLE_MS } from '../../electron/broker/audit/log-path-anchor.js';

const temps: string[] = [];
const anchors: LogPathAnchor[] = [];
afterEach(() => {
  for (const a of anchors.splice(0)) a.close();
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const settled = () => new Promise((r) => setTimeout(r, SETTLE_MS + 10));

/** <tmp>/top/data, an anchor on data, vouched for (a look after settled ctimes). */
async function vouched(): Promise<{ top: string; data: string; anchor: LogPathAnchor }> {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-anchor-')));
  temps.push(top);
  const data = path.join(top, 'data');
  fs.mkdirSync(data);
  fs.writeFileSync(path.join(data, 'file'), 'x');
  const anchor = LogPathAnchor.open(data)!;
  anchors.push(anchor);
  expect(anchor).toBeDefined();
  anchor.adopt(anchor.note()); // too fresh: not trusted yet
  expect(anchor.unchanged()).toBe(false);
  expect(await vouch(anchor)).toBe(true);
  return { top, data, anchor };
}

/** Notes and adopts once the ctimes settled. The temp folder above is shared: another process may move its ctime, then again. */
async function vouch(anchor: LogPathAnchor): Promise<boolean> {
  for (let attempt = 0; attempt < 30; attempt++) {
    await settled();
    anchor.adopt(anchor.note());
    if (anchor.unchanged()) return true;
  }
  return false;
}

describe('LogPathAnchor', () => {
  it('stays unchanged while files in the folder are only written to', async () => {
    const { data, anchor } = await vouched();
    for (let attempt = 0; ; attempt++) {
      const tmp = fs.statSync(os.tmpdir(), { bigint: true }).ctimeNs;
      fs.appendFileSync(path.join(data, 'file'), 'more');
      fs.chmodSync(path.join(data, 'file'), 0o600);
      if (anchor.unchanged()) break;
      // Only another process changing the shared temp folder meanwhile may end the trust.
      expect(fs.statSync(os.tmpdir(), { bigint: true }).ctimeNs).not.toBe(tmp);
      expect(attempt).toBeLessThan(30);
      expect(await vouch(anchor)).toBe(true);
    }
  });

  it.each([
    ['an entry made in the folder', ({ data }: { data: string; top: string }) => fs.writeFileSync(path.join(data, 'new'), '')],
    ['an entry renamed in the folder', ({ data }: { data: string; top: string }) => fs.renameSync(path.join(data, 'file'), path.join(data, 'moved'))],
    ['an entry removed from the folder', ({ data }: { data: string; top: string }) => fs.rmSync(path.join(data, 'file'))],
    ['the folder itself renamed', ({ data, top }: { data: string; top: string }) => fs.renameSync(data, path.join(top, 'elsewhere'))],
    ['an entry made in a folder above', ({ top }: { data: string; top: string }) => fs.writeFileSync(path.join(top, 'sibling'), '')],
  ])('ends its trust on %s, until a new look vouches again', async (_what, change) => {
    const dirs = await vouched();
    change(dirs);
    expect(dirs.anchor.unchanged()).toBe(false);
    expect(dirs.anchor.unchanged()).toBe(false);
    expect(await vouch(dirs.anchor)).toBe(true);
  });

  it('vouches for no path with a symlink on it', () => {
    const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-anchor-')));
    temps.push(top);
    fs.mkdirSync(path.join(top, 'real'));
    fs.symlinkSync(path.join(top, 'real'), path.join(top, 'link'));
    expect(LogPathAnchor.open(path.join(top, 'link'))).toBeUndefined();
    expect(LogPathAnchor.open(path.join(top, 'missing'))).toBeUndefined();
  });
});
