// "Start at login". macOS and Windows have app.setLoginItemSettings; Linux desktops read an XDG
// autostart entry, which this module writes itself.
import fs from 'node:fs';
import path from 'node:path';
import type { Toggle } from './tray-controller.js';
import { HIDDEN_FLAG } from './launch-options.js';

export interface LoginItemApi {
  getLoginItemSettings(): { openAtLogin: boolean };
  setLoginItemSettings(settings: { openAtLogin: boolean; args?: string[] }): void;
}

export function systemLoginItem(app: LoginItemApi): Toggle {
  return {
    get: () => app.getLoginItemSettings().openAtLogin,
    set: (on) => app.setLoginItemSettings({ openAtLogin: on, args: [HIDDEN_FLAG] }),
  };
}

/** `configHome` is $XDG_CONFIG_HOME or ~/.config; `exec` the program to run ($APPIMAGE or the executable). */
export function xdgAutostart(configHome: string, exec: string): Toggle {
  const file = path.join(configHome, 'autostart', 'countersign.desktop');
  return {
    get: () => fs.existsSync(file),
    set: (on) => {
      if (!on) {
        fs.rmSync(file, { force: true });
        return;
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, autostartEntry(exec), { mode: 0o644 });
    },
  };
}

export function autostartEntry(exec: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Countersign',
    'Comment=Approve what AI agents do through MCP',
    `Exec=${desktopExecQuote(exec)} ${HIDDEN_FLAG}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/**
 * Quoting from the Desktop Entry spec: inside double quotes, " ` $ \ take a backslash; then the
 * string-level rule doubles every backslash again; % is doubled for field codes.
 */
export function desktopExecQuote(arg: string): string {
  if (/[\n\r]/.test(arg)) throw new Error('An autostart command cannot contain a line break.');
  const quoted = arg.replace(/["`$\\]/g, '\\$&');
  return `"${quoted.replace(/\\/g, '\\\\').replace(/%/g, '%%')}"`;
}

/** $XDG_CONFIG_HOME when absolute (the spec says to ignore relative values), else ~/.config. */
export function xdgConfigHome(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config');
}
