// Placeholders that a client fills in when it starts a server. Once Countersign starts the server
// instead, the ones with a fixed meaning (the project folder, the home folder) are filled in here; a
// variable of the client's environment passes through when it is an env value of the same name (the
// server gets it from Countersign's environment, as it did from the client's); the others (a prompt,
// a secret the client keeps, a command to run) are reported, so wrap leaves the entry as it is.
import path from 'node:path';

export type PlaceholderStyle = 'none' | 'vscode' | 'windsurf' | 'claude-code' | 'gemini' | 'env-colon' | 'continue' | 'shell' | 'opencode';

export interface PlaceholderContext {
  home: string;
  platform: NodeJS.Platform;
  /** The project folder, for project files. */
  project?: string;
}

export type PlaceholderKind =
  /** A variable of the client's environment. */
  | 'env'
  /** A value the client asks the person for when it starts the server. */
  | 'input'
  /** The folder the client has open, which a user-wide file does not name. */
  | 'workspace'
  /** Anything else the client computes (a file's content, a command's output, a secret it stores). */
  | 'other';

export interface Unresolved {
  /** As written, e.g. `${input:api-key}`. */
  text: string;
  kind: PlaceholderKind;
  /** The variable, for `env`. */
  name?: string;
  /** In the env value of a variable that decides what code runs (trust/launch-fill.ts LOADER_ENV). */
  loader?: boolean;
}

export interface Resolved {
  value: string;
  unresolved: Unresolved[];
}

type Classify = (match: RegExpExecArray, ctx: PlaceholderContext) => { fixed: string } | Omit<Unresolved, 'text'>;

const env = (name: string | undefined): Omit<Unresolved, 'text'> => ({ kind: 'env', ...(name && { name }) });

const STYLES: Record<Exclude<PlaceholderStyle, 'none'>, { re: RegExp; classify: Classify }> = {
  // VS Code and Cursor: ${name} and ${scheme:arg}.
  vscode: {
    re: /\$\{([^}]*)\}/g,
    classify: ([, inner = ''], ctx) => {
      const fixed = fixedVariable(inner, ctx);
      if (fixed !== undefined) return { fixed };
      if (inner.startsWith('env:')) return env(inner.slice(4));
      if (inner.startsWith('input:')) return { kind: 'input' };
      if (inner.startsWith('workspaceFolder')) return { kind: 'workspace' };
      return { kind: 'other' };
    },
  },
  // Windsurf: ${env:NAME} and ${file:/path}.
  windsurf: { re: /\$\{((?:env|file):[^}]*)\}/g, classify: ([, inner = '']) => (inner.startsWith('env:') ? env(inner.slice(4)) : { kind: 'other' }) },
  // Roo Code: ${env:NAME}.
  'env-colon': { re: /\$\{env:([^}]*)\}/g, classify: ([, name]) => env(name) },
  // Claude Code, Kiro, Copilot CLI: ${VAR} and ${VAR:-default}, from their own environment.
  'claude-code': { re: /\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g, classify: ([, name, dflt]) => (dflt ? { kind: 'other' } : env(name)) },
  // Gemini CLI: $VAR and ${VAR}.
  gemini: { re: /\$(?:\{([^}]+)\}|([A-Za-z_][A-Za-z0-9_]*))/g, classify: ([, braced, bare]) => env(braced ?? bare) },
  // Crush: $VAR, ${VAR}, and $(command), which runs a command.
  shell: {
    re: /\$(?:\(([^)]*)\)|\{([^}]+)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    classify: ([, cmd, braced, bare]) => (cmd !== undefined ? { kind: 'other' } : env(braced ?? bare)),
  },
  // Continue: ${{ secrets.NAME }} and ${{ inputs.NAME }}, kept by Continue (or its hub).
  continue: { re: /\$\{\{\s*([^}]*?)\s*\}\}/g, classify: () => ({ kind: 'other' }) },
  // opencode: {env:NAME} and {file:path}.
  opencode: { re: /\{(env|file):([^}]*)\}/g, classify: ([, scheme, arg]) => (scheme === 'env' ? env(arg) : { kind: 'other' }) },
};

export function resolvePlaceholders(style: PlaceholderStyle, text: string, ctx: PlaceholderContext): Resolved {
  if (style === 'none') return { value: text, unresolved: [] };
  const { re, classify } = STYLES[style];
  const unresolved: Unresolved[] = [];
  let value = '';
  let at = 0;
  const pattern = new RegExp(re);
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    const found = classify(m, ctx);
    value += text.slice(at, m.index) + ('fixed' in found ? found.fixed : m[0]);
    if (!('fixed' in found)) unresolved.push({ text: m[0], ...found });
    at = m.index + m[0].length;
  }
  return { value: value + text.slice(at), unresolved };
}

/** VS Code's variables whose value does not depend on the running editor. */
function fixedVariable(name: string, ctx: PlaceholderContext): string | undefined {
  const p = ctx.platform === 'win32' ? path.win32 : path.posix;
  switch (name) {
    case 'userHome':
      return ctx.home;
    case 'pathSeparator':
    case '/':
      return p.sep;
    case 'workspaceFolder':
      return ctx.project;
    case 'workspaceFolderBasename':
      return ctx.project === undefined ? undefined : p.basename(ctx.project);
    default:
      return undefined;
  }
}
