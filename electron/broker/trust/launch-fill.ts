// Placeholders a client fills when it starts `countersign connect` (VS Code's `${input:…}`,
// `${workspaceFolder}`…): wrap stores the launch with them as written and names them in `fills`; connect
// passes the client's values in its hello. Only declared placeholders are filled, all of them or none.
// Consent binds the command line AFTER filling (another folder or argument is a new launch the person
// approves, seeing the real values). Filled env values are bound too, but never shown: the launch hash
// covers them (a made-up API key or URL from a connect the agent started is a new launch that waits for
// the person), while views and the log name env variables only, so a typed secret is never displayed.
import type { ServerConfig } from '../../../shared/api.js';
import { FILL_NAME, MAX_FILLS, MAX_FILL_VALUE } from '../../../shared/config-schema.js';

export type FillValues = Record<string, string>;

/** Variables that decide what code a program loads: a value typed at launch never goes there unseen. */
export const LOADER_ENV =
  /^(NODE_OPTIONS|NODE_PATH|PATH|LD_[A-Z_]*|DYLD_[A-Z_]*|PYTHON[A-Z_]*|PERL5?LIB|PERL5OPT|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|BASH_ENV|ENV|ELECTRON_RUN_AS_NODE|GIT_[A-Z_]*|NPM_CONFIG_[A-Z_]*)$/i;

export class FillRefusedError extends Error {}

const PLACEHOLDER = /\$\{([^}]*)\}/g;

/** The placeholders a text holds, by name. */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** Checks values from a hello: bounded in count and size, names a placeholder can have, no control characters. */
export function parseFillValues(value: unknown): FillValues | undefined {
  if (value === undefined) return undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('handshake has bad fills');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_FILLS) throw new Error(`handshake has more than ${MAX_FILLS} fills`);
  for (const [name, v] of entries) {
    if (!FILL_NAME.test(name)) throw new Error('handshake has a bad fill name');
    // No control characters: a filled command line is shown for approval, and must read as what runs.
    if (typeof v !== 'string' || v.length > MAX_FILL_VALUE || /[\u0000-\u001f\u007f]/.test(v)) throw new Error(`handshake has a bad value for \${${name}}`);
  }
  return Object.fromEntries(entries) as FillValues;
}

/** The env variables wrap writes into a client's entry: `COUNTERSIGN_FILL_<n>` = `<name>=${<name>}`. */
export const FILL_ENV_PREFIX = 'COUNTERSIGN_FILL_';

export function fillEnvEntries(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((n, i) => [`${FILL_ENV_PREFIX}${i}`, `${n}=\${${n}}`]));
}

/** What the client filled, from `connect`'s environment (the client expands its entry's env values). */
export function fillsFromEnv(env: NodeJS.ProcessEnv): FillValues | undefined {
  const values: Record<string, string> = {};
  for (const [key, text] of Object.entries(env)) {
    if (!key.startsWith(FILL_ENV_PREFIX) || text === undefined) continue;
    const eq = text.indexOf('=');
    if (eq <= 0) throw new Error(`${key} is not NAME=value`);
    values[text.slice(0, eq)] = text.slice(eq + 1);
  }
  return Object.keys(values).length ? parseFillValues(values) : undefined;
}

/**
 * `run`: what starts (every declared placeholder filled); `consent`: what the person approves, which is
 * exactly what runs (shown with env names only). Refuses a value for a placeholder the launch does not
 * declare, and a declared one left without a value.
 */
export function fillLaunch(server: string, config: ServerConfig, values: FillValues = {}): { run: ServerConfig; consent: ServerConfig } {
  const given = Object.keys(values);
  if (!('command' in config) || !config.fills) {
    if (given.length)
      throw new FillRefusedError(
        `Countersign refused to start '${server}': its launch has no placeholder for the client to fill, but this connection passed ${given.map((n) => `\${${n}}`).join(', ')}.`,
      );
    return { run: config, consent: config };
  }
  const declared = new Set(config.fills);
  const extra = given.filter((n) => !declared.has(n));
  if (extra.length)
    throw new FillRefusedError(
      `Countersign refused to start '${server}': ${extra.map((n) => `\${${n}}`).join(', ')} ${extra.length === 1 ? 'is' : 'are'} not a placeholder of its launch, so the value passed for it is refused.`,
    );
  const missing = config.fills.filter((n) => !(n in values));
  if (missing.length)
    throw new FillRefusedError(
      `Countersign did not start '${server}': the client did not fill ${missing.map((n) => `\${${n}}`).join(', ')}. Start it from the client whose entry Countersign wrapped (it fills these when it starts the server).`,
    );
  const fill = (text: string): string => text.replace(PLACEHOLDER, (whole, name: string) => (declared.has(name) ? values[name]! : whole));
  const { fills: _declared, ...stored } = config;
  const line = {
    ...stored,
    command: fill(config.command),
    ...(config.args && { args: config.args.map(fill) }),
    ...(config.cwd !== undefined && { cwd: fill(config.cwd) }),
  };
  const env =
    config.env &&
    Object.fromEntries(
      Object.entries(config.env).map(([k, v]) => {
        if (LOADER_ENV.test(k) && placeholdersIn(v).some((n) => declared.has(n)))
          throw new FillRefusedError(
            `Countersign refused to start '${server}': ${k} decides what code runs, and its value is filled at launch, where you would not see it.`,
          );
        return [k, fill(v)];
      }),
    );
  const run = { ...line, ...(env && { env }) };
  return { run, consent: run };
}
