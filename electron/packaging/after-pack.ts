// electron-builder afterPack hook (built to dist/packaging/after-pack.cjs): flips the Electron fuses
// in the packaged binary, from the one fuse list in electron/main/security-config.ts.
import path from 'node:path';
import { flipFuses, FuseV1Options, FuseVersion } from '@electron/fuses';
import { fuseSettings, isTestBuild, type FuseName } from '../main/security-config.js';

/** The fields of electron-builder's AfterPackContext used here (electron-builder is not a dependency). */
export interface AfterPackContext {
  appOutDir: string;
  electronPlatformName: string;
  /** electron-builder's Arch enum: 1 = x64, 3 = arm64. */
  arch: number;
  packager: { appInfo: { productFilename: string }; executableName?: string };
}

const ARM64 = 3;

export function packagedBinary(context: AfterPackContext): string {
  const { appOutDir, electronPlatformName, packager } = context;
  const name = packager.appInfo.productFilename;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') return path.join(appOutDir, `${name}.app`);
  if (electronPlatformName === 'win32') return path.join(appOutDir, `${name}.exe`);
  return path.join(appOutDir, packager.executableName ?? name);
}

export function fuseConfigFor(context: AfterPackContext, env: NodeJS.ProcessEnv) {
  const settings = fuseSettings({ testBuild: isTestBuild(env) });
  const wire = Object.fromEntries((Object.entries(settings) as Array<[FuseName, boolean]>).map(([name, on]) => [FuseV1Options[name], on])) as Record<
    FuseV1Options,
    boolean
  >;
  return {
    version: FuseVersion.V1,
    // Flipping fuses breaks the ad-hoc signature that Apple Silicon requires; re-sign ad hoc.
    resetAdHocDarwinSignature: context.electronPlatformName === 'darwin' && context.arch === ARM64,
    // Every fuse @electron/fuses names is set (FUSES is typed to cover them all). Not strict at run
    // time: a newer Electron may carry fuses this library does not name yet, and those keep their
    // defaults instead of failing the package.
    strictlyRequireAllFuses: false as const,
    ...wire,
  };
}

export default async function afterPack(context: AfterPackContext): Promise<void> {
  const binary = packagedBinary(context);
  const config = fuseConfigFor(context, process.env);
  await flipFuses(binary, config);
  process.stdout.write(`countersign: fuses flipped in ${binary}${isTestBuild(process.env) ? ' (test build: --inspect allowed)' : ''}\n`);
}
