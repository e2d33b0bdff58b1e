// Placeholders that a client fills in when it starts a server. Once Countersign starts the server
// instead, only the ones with a fixed meaning (the project folder, the home folder) can still be filled
// in; the others (an input prompt, the client's environment) are reported so wrap can refuse the entry.
import path from 'node:path';
import type { PlaceholderStyle } from './catalogue.js';

export interface PlaceholderContext {
  home: string;
  platform: NodeJS.Platform;
  /** The project folder, for project files. */
  project?: string;
}

export interface Resolved {
  value: string;
  /** Placeholders left, as written (e.g. `${input:api-key}`). */
  unresolved: string[];
}

const PATTERNS: Record<Exclude<PlaceholderStyle, 'none'>, RegExp> = {
  // VS Code and Cursor: ${name} and ${scheme:arg}.
  vscode: /\$\{([^}]*)\}/g,
  // Windsurf: ${env:NAME} and ${file:/path}.
  windsurf: /\$\{((?:env|file):[^}]*)\}/g,
  // Claude Code: ${VAR} and ${VAR:-default}, from its own environment.
  'claude-code': /\$\{([A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?)\}/g,
  // Gemini CLI: $VAR and ${VAR}.
  gemini: /\$(?:\{([^}]+)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
};

export function resolvePlaceholders(style: PlaceholderStyle, text: string, ctx: PlaceholderContext): Resolved {
  if (style === 'none') return { value: text, unresolved: [] };
  const unresolved: string[] = [];
  const value = text.replace(PATTERNS[style], (whole: string, inner: string | undefined, bare: string | undefined) => {
    const fixed = style === 'vscode' ? fixedVariable(inner ?? bare ?? '', ctx) : undefined;
    if (fixed !== undefined) return fixed;
    unresolved.push(whole);
    return whole;
  });
  return { value, unresolved };
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
