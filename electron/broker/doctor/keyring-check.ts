// Where the seal key lives: the OS keyring, or the key file it falls back to (and why).
import path from 'node:path';
import type { DoctorFinding } from '../../../shared/doctor.js';
import { defaultKeyDir, keyringMayAnswer, vaultId } from '../store/key-vault.js';

/** `where`: the vault's own words (GrantSeal.keyWhere) when a core opened it; else what it would choose. */
export function keyringFindings(dataDir: string, env: NodeJS.ProcessEnv, where?: string, platform: NodeJS.Platform = process.platform): DoctorFinding[] {
  const area = 'keyring' as const;
  const keyFile = path.join(defaultKeyDir(env, platform), `${vaultId(dataDir)}.key.json`);
  const inKeyring = where ? where.startsWith('the system keyring') : !env.COUNTERSIGN_KEY_DIR && keyringMayAnswer(env, platform);
  if (inKeyring) {
    return [{ area, code: 'keyring.ok', level: 'ok', summary: `The seal key is in ${where ?? 'the system keyring'}${where ? '' : ' (when it answers)'}.` }];
  }
  const why = env.COUNTERSIGN_KEY_DIR
    ? 'COUNTERSIGN_KEY_DIR chooses a key file'
    : platform === 'linux'
      ? 'no keyring answers here (no Secret Service: no D-Bus session bus, as on a headless machine or in a container)'
      : 'the keyring did not answer';
  const file = where?.replace(/^the key file /, '') ?? keyFile;
  const inside = path.resolve(file).startsWith(`${path.resolve(dataDir)}${path.sep}`);
  return [
    {
      area,
      code: inside ? 'keyring.key-in-data-folder' : 'keyring.fallback',
      level: inside ? 'warning' : 'note',
      summary: `The seal key is in a key file, ${file}: ${why}.`,
      detail: inside
        ? 'It is inside the data folder, so a hand edit there can forge trust and launch consent.'
        : 'Any program running as you can read a key file; a keyring asks first (docs/security.md).',
      fix: inside
        ? `set COUNTERSIGN_KEY_DIR to a folder outside ${dataDir}`
        : platform === 'linux'
          ? 'on a desktop, start Countersign inside your session (gnome-keyring or KWallet running) so it uses the keyring'
          : 'let Countersign use the system keyring (unset COUNTERSIGN_KEY_DIR)',
      subject: { path: file },
    },
  ];
}
