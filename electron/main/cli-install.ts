// "Install command line tool": asks first (showing exactly what goes where), asks again before replacing
// a file Countersign did not write, then writes the launcher atomically and says whether `countersign`
// will be found on PATH. The dialogs are passed in (native ones in main.ts), so this runs under Node.
import fs from 'node:fs';
import path from 'node:path';
import type { CliCommand } from '../broker/core/cli-command.js';
import { writeFileAtomicSync } from '../broker/store/atomic-file.js';
import type { CliInstallResult } from '../ipc/desktop-api.js';
import { inspect, planLauncher, type LauncherEnv, type LauncherPlan } from './cli-launcher.js';

/** A yes/no question: buttons[1] is yes; anything else (Escape, closing it) is no. */
export interface ConfirmBox {
  message: string;
  detail: string;
  buttons: [no: string, yes: string];
}

export interface InstallDeps {
  command: CliCommand;
  env: LauncherEnv;
  confirm(box: ConfirmBox): Promise<boolean>;
}

export async function installCommandLineTool(deps: InstallDeps): Promise<CliInstallResult> {
  const plan = planLauncher(deps.command, deps.env);
  if (!(await deps.confirm(askBox(plan, deps.env.platform)))) return { installed: false, message: 'Nothing was written.' };
  if (plan.existing === 'foreign' && !(await deps.confirm(replaceBox(plan)))) {
    return { installed: false, message: `${plan.file} was kept as it is; nothing was written.` };
  }
  // Looked at again: a file may have appeared while the person read the dialog.
  if (plan.existing !== 'foreign' && inspect(plan.file).existing === 'foreign') {
    return { installed: false, message: `Something else was written to ${plan.file} meanwhile; nothing was written. Try again to see it.` };
  }
  try {
    fs.mkdirSync(path.dirname(plan.file), { recursive: true, mode: 0o755 });
    writeFileAtomicSync(plan.file, plan.content, 0o755);
  } catch (err) {
    return { installed: false, message: `Countersign could not write ${plan.file}: ${(err as Error).message}` };
  }
  return { installed: true, path: plan.file, onPath: plan.onPath, message: `Installed ${plan.file}. ${pathNote(plan, deps.env.platform)}` };
}

function askBox(plan: LauncherPlan, platform: NodeJS.Platform): ConfirmBox {
  const notes = [
    plan.fallback,
    plan.existing === 'ours' ? 'It replaces the launcher Countersign wrote there before.' : undefined,
    plan.existing === 'foreign' ? `Something is there already (${plan.existingWhat}): Countersign will ask before replacing it.` : undefined,
    pathNote(plan, platform),
  ].filter(Boolean);
  return {
    message: 'Install the countersign command?',
    detail: `Countersign will write this file:\n${plan.file}\n\n${plan.content.trimEnd()}\n\n${notes.join('\n')}`,
    buttons: ['Cancel', 'Install'],
  };
}

function replaceBox(plan: LauncherPlan): ConfirmBox {
  return {
    message: `Replace ${plan.file}?`,
    detail: `It is ${plan.existingWhat}. Countersign did not write it. If you replace it, \`countersign\` runs this app instead of whatever it ran before.`,
    buttons: ['Keep it', 'Replace'],
  };
}

function pathNote(plan: LauncherPlan, platform: NodeJS.Platform): string {
  const dir = path.dirname(plan.file);
  const shadow = plan.shadowedBy ? ` But ${plan.shadowedBy} comes first on your PATH, so \`countersign\` runs that one until you remove it.` : '';
  if (plan.onPath) return `${dir} is on your PATH: new terminals find \`countersign\`.${shadow}`;
  const how =
    platform === 'win32'
      ? 'add it to your user Path (Settings, System, About, Advanced system settings, Environment Variables)'
      : `add it to your PATH, e.g. export PATH="${dir}:$PATH" in ~/.profile (bash) or ~/.zprofile (zsh)`;
  return `${dir} is not on your PATH: ${how}, or run ${plan.file} by its full path.${shadow}`;
}
