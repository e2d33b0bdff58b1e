// The check that keeps tests off a stale dist/ (scripts/source-stamp.mjs), on a temp folder shaped like
// the checkout: a build stamps, an edit, a new file, a removed file or a failed build make it stale.
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearStamp, distFreshness, freshnessMessage, sourceDigests, writeStamp } from '../../scripts/source-stamp.mjs';

let root: string;
const put = (rel: string, text: string): void => {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
};
const build = (): void => {
  const digests = sourceDigests(root);
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeStamp(root, digests);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cs-stamp-'));
  put('electron/broker/core/broker.ts', 'export const a = 1;\n');
  put('shared/api.ts', 'export type A = 1;\n');
  put('renderer/src/App.tsx', 'export const App = () => null;\n');
  put('scripts/build-cli.mjs', '// build\n');
  put('vite.config.ts', 'export default {};\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('dist freshness', () => {
  it('is fresh right after a build, and stays fresh when only mtimes change', () => {
    build();
    expect(distFreshness(root).fresh).toBe(true);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'shared/api.ts'), later, later);
    expect(distFreshness(root)).toMatchObject({ fresh: true, changed: [], added: [], removed: [] });
  });

  it('names a source edited after the build', () => {
    build();
    put('electron/broker/core/broker.ts', 'export const a = 2;\n');
    const result = distFreshness(root);
    expect(result).toMatchObject({ fresh: false, changed: ['electron/broker/core/broker.ts'] });
    expect(freshnessMessage(result)).toMatch(/dist\/ is older than its sources[\s\S]*npm run build[\s\S]*electron\/broker\/core\/broker\.ts/);
  });

  it('names new and removed sources, and counts build inputs (vite config, build scripts)', () => {
    build();
    put('renderer/src/new-view.tsx', 'export {};\n');
    rmSync(join(root, 'shared/api.ts'));
    put('vite.config.ts', 'export default { base: "./" };\n');
    expect(distFreshness(root)).toMatchObject({ fresh: false, added: ['renderer/src/new-view.tsx'], removed: ['shared/api.ts'], changed: ['vite.config.ts'] });
  });

  it('ignores test files beside the sources (editing a test needs no rebuild)', () => {
    build();
    put('shared/api.test.ts', 'it("x", () => {});\n');
    put('renderer/src/App.test.tsx', 'it("x", () => {});\n');
    expect(distFreshness(root).fresh).toBe(true);
  });

  it('is stale with no stamp: never built, or a build that failed after clearing it', () => {
    expect(distFreshness(root)).toMatchObject({ fresh: false, unbuilt: true });
    build();
    clearStamp(root);
    const result = distFreshness(root);
    expect(result.unbuilt).toBe(true);
    expect(freshnessMessage(result)).toMatch(/npm run build/);
  });

  it('shortens a long list', () => {
    build();
    for (let i = 0; i < 8; i++) put(`electron/x${i}.ts`, `${i}\n`);
    expect(freshnessMessage(distFreshness(root))).toMatch(/and 3 more/);
  });
});
