import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, SOURCE_DIRS } from '../../scripts/check-cycles.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'import-cycles');
const ROOT = join(import.meta.dirname, '..', '..');

describe('check:cycles', () => {
  it('finds a cycle made only of type imports', async () => {
    const r = await importCycles(FIXTURES, ['type-only']);
    expect(r.cycles).toEqual([['type-only/a.ts', 'type-only/b.ts']]);
    expect(r.files).toBe(3);
  });

  it('passes imports that go one way', async () => {
    const r = await importCycles(FIXTURES, ['none']);
    expect(r).toEqual({ files: 2, cycles: [], unresolved: [], unparsed: [] });
  });

  it('reports a relative import it cannot resolve (it could hide a cycle)', async () => {
    const r = await importCycles(FIXTURES, ['unresolved']);
    expect(r.unresolved).toEqual(['unresolved/a.ts -> ./gone.js']);
  });

  it('finds a cycle through a .tsx file and a dynamic import', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
    try {
      cpSync(join(FIXTURES, 'none'), join(dir, 'src'), { recursive: true });
      // `./b.js` names b.ts only under the project's module resolution (as in the real tsconfig).
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', jsx: 'react-jsx' } }));
      writeFileSync(join(dir, 'src', 'view.tsx'), "export const View = () => import('./b.js');\n");
      writeFileSync(
        join(dir, 'src', 'b.ts'),
        "import type { View } from './view.js';\nexport interface B { n: number; v?: typeof View }\nexport const b: B = { n: 1 };\n",
      );
      const r = await importCycles(dir, ['src']);
      expect(r.unresolved).toEqual([]);
      expect(r.cycles).toEqual([['src/b.ts', 'src/view.tsx']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('covers every source file of the project, and finds no cycle there', async () => {
    const r = await importCycles(ROOT, SOURCE_DIRS);
    expect(r.unparsed).toEqual([]);
    expect(r.unresolved).toEqual([]);
    expect(r.cycles).toEqual([]);
    expect(r.files).toBeGreaterThan(300);
  });
});
