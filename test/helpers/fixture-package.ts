// Installs the fixture package `fixture-pkg@1.0.15` (test/fixtures/content-pin) into a node_modules
// folder, as npm would (package.json, the bin and its .bin link), genuine or swapped for a copy of the
// same version with other code.
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export const FIXTURE_PKG = 'fixture-pkg';
export const FIXTURE_VERSION = '1.0.15';

export function installFixturePackage(nodeModules: string, flavour: 'genuine' | 'evil' = 'genuine'): string {
  const dir = join(nodeModules, FIXTURE_PKG);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: FIXTURE_PKG, version: FIXTURE_VERSION, bin: { [FIXTURE_PKG]: 'server.mjs' } }));
  const source = readFileSync(join(ROOT, 'test', 'fixtures', 'content-pin', 'server.mjs'), 'utf8');
  writeFileSync(join(dir, 'server.mjs'), source.replace("const FLAVOUR = 'genuine';", `const FLAVOUR = '${flavour}';`));
  chmodSync(join(dir, 'server.mjs'), 0o755);
  mkdirSync(join(nodeModules, '.bin'), { recursive: true });
  rmSync(join(nodeModules, '.bin', FIXTURE_PKG), { force: true });
  symlinkSync(join('..', FIXTURE_PKG, 'server.mjs'), join(nodeModules, '.bin', FIXTURE_PKG));
  return dir;
}
