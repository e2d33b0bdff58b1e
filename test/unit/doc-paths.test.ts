// Every file or folder the README and docs/*.md name must exist, so the docs cannot drift from the tree.
// Three kinds of mention are checked:
// - repository paths (`electron/…`, `shared/…`, `docs/…`, …), globs included (`test/integration/era-*.test.ts`);
// - partial paths of source files (`sandbox/detect.ts`), which must end the path of some file in the tree;
// - bare source file names (`tier-up.ts`, `rug-pull-server.mjs`), looked up anywhere in the tree, because a
//   doc that says "see tier-up.ts" is as stale as one with a full path when the file is gone;
// - relative Markdown links (`[policy](policy.md)`).
// Paths of build output (`dist/`), data-dir files (`audit.jsonl`, `settings.json`) and absolute paths are
// not the repository's, so they are not checked.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

const TOP = ['electron', 'shared', 'renderer', 'test', 'e2e', 'docs', 'scripts', 'bench', 'build', 'bin'];
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'release', 'test-results', 'playwright-report']);
const SOURCE_EXT = /\.(?:ts|tsx|mts|mjs|cjs)$/;

function walk(dir: string, out: string[]): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name)) continue;
    const full = join(dir, e.name);
    if (e.isDirectory()) walk(full, out);
    else out.push(relative(ROOT, full).split(sep).join('/'));
  }
  return out;
}

const files = walk(ROOT, []);
const baseNames = new Set(files.map((f) => f.slice(f.lastIndexOf('/') + 1)));
const dirs = new Set(
  files.flatMap((f) =>
    f
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '(?:.*/)?';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Whether a repository path (file, folder, or glob) names something in the tree. */
export function pathExists(path: string): boolean {
  const p = path.replace(/\/$/, '');
  if (p.includes('*')) {
    const re = globToRegExp(p);
    return files.some((f) => re.test(f));
  }
  return files.includes(p) || dirs.has(p);
}

/** Whether some file's path ends with this partial path (`sandbox/detect.ts`). */
export function isPathEnd(partial: string): boolean {
  return files.some((f) => f.endsWith(`/${partial}`));
}

const repoPath = new RegExp(`(?<![\\w./~@$%-])(?:${TOP.join('|')})/[\\w.*/-]*[\\w*/]`, 'g');
const partialPath = /(?<![\w./~@$%-])[\w.-]+(?:\/[\w.-]+)+\.(?:ts|tsx|mts|mjs|cjs)\b(?![\w/-])/g;
const BUILD_OUTPUT = /^(?:dist|release|node_modules)\//;
const bareName = /(?<![\w./~@$%-])[\w-]+(?:\.[\w-]+)*\.(?:ts|tsx|mts|mjs|cjs)\b(?![\w/-])/g;
const mdLink = /\]\(([^)\s#]+)(?:#[^)]*)?\)/g;

/** The repository paths and bare file names one document mentions. */
export function mentions(text: string): { paths: string[]; partials: string[]; names: string[]; links: string[] } {
  const paths = [...text.matchAll(repoPath)].map((m) => m[0].replace(/\.$/, ''));
  const withoutRepoPaths = text.replace(repoPath, ' ');
  const partials = [...withoutRepoPaths.matchAll(partialPath)].map((m) => m[0]).filter((p) => !BUILD_OUTPUT.test(p));
  const withoutPaths = withoutRepoPaths.replace(partialPath, ' ');
  const names = [...withoutPaths.matchAll(bareName)].map((m) => m[0]).filter((n) => SOURCE_EXT.test(n));
  const links = [...text.matchAll(mdLink)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
  return { paths, partials, names, links };
}

const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('paths named in README.md and docs/*.md', () => {
  it('recognises each kind of mention (and ignores build output, absolute and home paths)', () => {
    const m = mentions(
      'See `electron/broker/core/tier-up.ts`, test/integration/era-*.test.ts, [p](policy.md#x), sandbox/detect.ts and seen-check.ts; ' +
        'not dist/connect.mjs, ~/.local/bin/countersign, /usr/bin/chromium, https://x.example/docs/a.md or node server.js.',
    );
    expect(m.paths).toEqual(['electron/broker/core/tier-up.ts', 'test/integration/era-*.test.ts']);
    expect(m.partials).toEqual(['sandbox/detect.ts']);
    expect(m.names).toEqual(['seen-check.ts']);
    expect(isPathEnd('sandbox/detect.ts')).toBe(true);
    expect(isPathEnd('self-protection/spellings.ts')).toBe(false);
    expect(m.links).toEqual(['policy.md']);
    expect(pathExists('electron/broker/core/')).toBe(true);
    expect(pathExists('renderer/**/*.test.tsx')).toBe(true);
    expect(pathExists('electron/broker/no-such-file.ts')).toBe(false);
    expect(pathExists('test/integration/no-such-*.test.ts')).toBe(false);
  });

  for (const doc of docs) {
    it(`${doc} names only paths that exist`, () => {
      const { paths, partials, names, links } = mentions(readFileSync(join(ROOT, doc), 'utf8'));
      const missing = [
        ...paths.filter((p) => !pathExists(p)),
        ...partials.filter((p) => !isPathEnd(p)).map((p) => `${p} (no file's path ends so)`),
        ...names.filter((n) => !baseNames.has(n)).map((n) => `${n} (a file name found nowhere in the tree)`),
        ...links
          .map((l) =>
            relative(ROOT, join(ROOT, dirname(doc), decodeURI(l)))
              .split(sep)
              .join('/'),
          )
          .filter((l) => !existsSync(join(ROOT, l)))
          .map((l) => `${l} (a link)`),
      ];
      expect(missing, `${doc} names paths that do not exist`).toEqual([]);
    });
  }
});
