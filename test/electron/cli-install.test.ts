// "Install command line tool": the plan for each OS, the questions (exactly what goes where), and the
// writes, in real temp folders; the launcher it writes is run for real.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countersignCommand, type CliCommand } from '../../electron/broker/core/cli-command.js';
import { installCommandLineTool, type ConfirmBox } from '../../electron/main/cli-install.js';
import { LAUNCHER_MARK, launcherContent, planLauncher, type LauncherEnv } from '../../electron/main/cli-launcher.js';

const APP: CliCommand = { command: '/opt/Countersign/countersign', args: ['--ozone-platform=headless', '--disable-gpu', '--cli'] };

function linuxHome(opts: { onPath?: boolean; extraPath?: string[] } = {}): { home: string; bin: string; env: LauncherEnv } {
  const home = mkdtempSync(path.join(tmpdir(), 'cs-home-'));
  const bin = path.join(home, '.local', 'bin');
  const dirs = [...(opts.extraPath ?? []), ...(opts.onPath === false ? [] : [bin]), '/usr/bin'];
  return { home, bin, env: { platform: 'linux', home, env: { PATH: dirs.join(':') } } };
}

/** Answers each question in turn, and keeps them to look at. */
function answers(...yes: boolean[]): { boxes: ConfirmBox[]; confirm(box: ConfirmBox): Promise<boolean> } {
  const boxes: ConfirmBox[] = [];
  return { boxes, confirm: async (box) => (boxes.push(box), yes[boxes.length - 1] ?? false) };
}

describe('the launcher', () => {
  it('is a small script that runs the app with its arguments, marked as ours', () => {
    expect(launcherContent(APP, 'linux')).toBe(
      `#!/bin/sh\n# ${LAUNCHER_MARK}: written by Countersign's "Install command line tool"; installing again replaces it.\nexec /opt/Countersign/countersign --ozone-platform=headless --disable-gpu --cli "$@"\n`,
    );
    const win = launcherContent({ command: 'C:\\Users\\Me Too\\AppData\\Local\\Programs\\Countersign\\Countersign.exe', args: ['--cli'] }, 'win32');
    expect(win.split('\r\n')).toEqual([
      '@echo off',
      `rem ${LAUNCHER_MARK}: written by Countersign's "Install command line tool"; installing again replaces it.`,
      '"C:\\Users\\Me Too\\AppData\\Local\\Programs\\Countersign\\Countersign.exe" --cli %* 2>&1 | findstr "^"',
      '',
    ]);
  });

  it('goes where each OS finds commands, with a clear fallback', () => {
    const linux = linuxHome();
    expect(planLauncher(APP, linux.env)).toMatchObject({ file: path.join(linux.bin, 'countersign'), onPath: true, existing: 'none', fallback: undefined });
    const mac = { platform: 'darwin' as const, home: '/Users/me', env: { PATH: '/usr/local/bin:/usr/bin' } };
    expect(planLauncher(APP, { ...mac, canWrite: (d) => d === '/usr/local/bin' })).toMatchObject({ file: '/usr/local/bin/countersign', onPath: true });
    expect(planLauncher(APP, { ...mac, canWrite: () => false })).toMatchObject({
      file: '/Users/me/.local/bin/countersign',
      onPath: false,
      fallback: expect.stringContaining('/usr/local/bin is not writable'),
    });
    const apps = 'C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps';
    const win = {
      platform: 'win32' as const,
      home: 'C:\\Users\\me',
      env: { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local', Path: `C:\\Windows;${apps}` },
      canWrite: () => true,
    };
    expect(planLauncher(APP, win)).toMatchObject({ file: `${apps}\\countersign.cmd`, onPath: true });
    expect(planLauncher(APP, { ...win, env: { ...win.env, Path: 'C:\\Windows' } })).toMatchObject({
      file: 'C:\\Users\\me\\AppData\\Local\\Countersign\\bin\\countersign.cmd',
      onPath: false,
      fallback: expect.stringContaining('not on your PATH'),
    });
  });
});

describe('installCommandLineTool', () => {
  it('asks first, showing the exact file and content, then writes an executable launcher that works', async () => {
    const { bin, env } = linuxHome();
    const checkout = countersignCommand();
    const ask = answers(true);
    const result = await installCommandLineTool({ command: checkout, env, confirm: ask.confirm });
    const file = path.join(bin, 'countersign');
    expect(ask.boxes).toHaveLength(1);
    expect(ask.boxes[0]!.message).toBe('Install the countersign command?');
    expect(ask.boxes[0]!.detail).toContain(`Countersign will write this file:\n${file}\n\n${launcherContent(checkout, 'linux').trimEnd()}`);
    expect(ask.boxes[0]!.detail).toContain(`${bin} is on your PATH`);
    expect(result).toEqual({
      installed: true,
      path: file,
      onPath: true,
      message: `Installed ${file}. ${bin} is on your PATH: new terminals find \`countersign\`.`,
    });
    expect(statSync(file).mode & 0o777).toBe(0o755);
    expect(execFileSync(file, ['--help'], { encoding: 'utf8' })).toContain('countersign connect <server> [--client <id>]');
  });

  it('writes nothing when the person cancels', async () => {
    const { bin, env } = linuxHome();
    expect(await installCommandLineTool({ command: APP, env, confirm: answers(false).confirm })).toEqual({ installed: false, message: 'Nothing was written.' });
    expect(existsSync(bin)).toBe(false);
  });

  it('asks again before replacing a file it did not write (an npm link shim), and keeps it on no', async () => {
    const { home, bin, env } = linuxHome();
    mkdirSync(bin, { recursive: true });
    const theirs = path.join(home, 'their-countersign.mjs');
    writeFileSync(theirs, '#!/usr/bin/env node\n');
    const file = path.join(bin, 'countersign');
    symlinkSync(theirs, file);

    const keep = answers(true, false);
    expect(await installCommandLineTool({ command: APP, env, confirm: keep.confirm })).toMatchObject({
      installed: false,
      message: `${file} was kept as it is; nothing was written.`,
    });
    expect(keep.boxes.map((b) => b.message)).toEqual(['Install the countersign command?', `Replace ${file}?`]);
    expect(keep.boxes[1]!.detail).toContain(`a link to ${theirs}`);
    expect(readlinkSync(file)).toBe(theirs);

    const replace = answers(true, true);
    expect(await installCommandLineTool({ command: APP, env, confirm: replace.confirm })).toMatchObject({ installed: true });
    // The link is replaced by our file; what it pointed at is untouched.
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(launcherContent(APP, 'linux'));
    expect(readFileSync(theirs, 'utf8')).toBe('#!/usr/bin/env node\n');
  });

  it('replaces its own launcher after the one question, and says so', async () => {
    const { bin, env } = linuxHome();
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'countersign'), launcherContent({ command: '/old/countersign', args: ['--cli'] }, 'linux'));
    const ask = answers(true);
    expect(await installCommandLineTool({ command: APP, env, confirm: ask.confirm })).toMatchObject({ installed: true });
    expect(ask.boxes).toHaveLength(1);
    expect(ask.boxes[0]!.detail).toContain('It replaces the launcher Countersign wrote there before.');
    expect(readFileSync(path.join(bin, 'countersign'), 'utf8')).toContain('/opt/Countersign/countersign');
  });

  it('says when the folder is not on PATH, and when another countersign comes first', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'cs-other-bin-'));
    writeFileSync(path.join(other, 'countersign'), '#!/bin/sh\n');
    chmodSync(path.join(other, 'countersign'), 0o755);
    const off = linuxHome({ onPath: false });
    const result = await installCommandLineTool({ command: APP, env: off.env, confirm: answers(true).confirm });
    expect(result).toMatchObject({
      installed: true,
      onPath: false,
      message: expect.stringContaining(`${off.bin} is not on your PATH: add it to your PATH, e.g. export PATH="${off.bin}:$PATH"`),
    });
    const shadowed = linuxHome({ extraPath: [other] });
    const ask = answers(false);
    await installCommandLineTool({ command: APP, env: shadowed.env, confirm: ask.confirm });
    expect(ask.boxes[0]!.detail).toContain(`But ${path.join(other, 'countersign')} comes first on your PATH`);
  });

  it('refuses when a file appears while the person decides, and loses nothing', async () => {
    const { bin, env } = linuxHome();
    const file = path.join(bin, 'countersign');
    const result = await installCommandLineTool({
      command: APP,
      env,
      confirm: async () => {
        mkdirSync(bin, { recursive: true });
        writeFileSync(file, 'written meanwhile\n');
        return true;
      },
    });
    expect(result).toMatchObject({ installed: false, message: expect.stringContaining('meanwhile') });
    expect(readFileSync(file, 'utf8')).toBe('written meanwhile\n');
  });

  it('reports a failed write clearly, leaving what was there', async () => {
    const { home, env } = linuxHome();
    // ~/.local is a file, so the folder cannot be made (a permission error would not stop root).
    writeFileSync(path.join(home, '.local'), 'not a folder');
    const result = await installCommandLineTool({ command: APP, env, confirm: answers(true).confirm });
    expect(result).toMatchObject({ installed: false, message: expect.stringMatching(/^Countersign could not write .*countersign: /) });
    expect(readFileSync(path.join(home, '.local'), 'utf8')).toBe('not a folder');
  });
});
