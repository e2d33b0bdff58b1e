// The text scan: known tool-poisoning tricks in text a server (or the model) wrote — hidden characters,
// instructions aimed at the model, references to secrets or to other servers' tools, URLs, base64
// blobs. Heuristics only WARN, they never decide: a person reads the finding and judges.
//
// Why here and not in shared/: only the broker runs it (trust/trust-manager.ts on tool definitions,
// argument-checks.ts on call arguments; bench/hostile-scan.ts measures it). In shared/, call-warnings.ts
// took only its Finding type (now shared/findings.ts) and definition-diff.ts its revealText (now
// escapeControl over the one invisible set, shared/text/invisible.ts); the renderer imports
// definition-diff for types only, and the broker runs it. esbuild's metafile of the renderer's entry and
// diff worker, before the move, held none of the scan.
//
// Parts: context.ts (what one scan is about, severities) · finding-text.ts (excerpts and quotes) ·
// characters.ts (hidden characters) · smuggling.ts (what tags and selectors spell) · word-rules.ts (the
// instruction and secret rules) · word-scan.ts (those rules and other servers' tool names, behind
// anchor-search.ts) · embedded.ts (URLs, base64) · text-scan.ts (one text, window by window) ·
// shadowing.ts (one tool name on two servers) · this file (texts, tools and schemas).
import type { Finding } from '../../../../shared/findings.js';
import { worstFirst } from '../../../../shared/decision.js';
import type { ToolDefinition } from '../../../../shared/tool.js';
import type { ScanContext, Where } from './context.js';
import { quote, revealClip } from './finding-text.js';
import { TextScan, windowEnd } from './text-scan.js';

export type { ScanContext, ServerTools } from './context.js';
export { LONG_DESCRIPTION_CHARS, SCAN_WINDOW } from './text-scan.js';
export { findShadowing, type Shadowing } from './shadowing.js';

const NOUNS: Record<Where, string> = { description: 'The description', name: 'The name', argument: 'The argument' };

function scanWith(text: string, ctx: ScanContext, noun: string): Finding[] {
  const scan = new TextScan(text, ctx.where, noun, ctx.otherServers);
  for (let at = 0; at < text.length; at = windowEnd(text, at)) scan.step(at, windowEnd(text, at));
  return scan.finish();
}

/**
 * scanText that gives the event loop back between windows: `pause` resolves when the caller
 * wants to go on (it decides how often to really yield).
 */
export async function scanTextAsync(text: string, ctx: ScanContext, pause: () => Promise<void> | void): Promise<Finding[]> {
  const scan = new TextScan(text, ctx.where, NOUNS[ctx.where], ctx.otherServers);
  for (let at = 0; at < text.length; at = windowEnd(text, at)) {
    scan.step(at, windowEnd(text, at));
    await pause();
  }
  return scan.finish();
}

/** Findings for one piece of text, most severe first. */
export function scanText(text: string, ctx: ScanContext): Finding[] {
  return scanWith(text, ctx, NOUNS[ctx.where]);
}

const MAX_SCHEMA_DEPTH = 32;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

// Descriptions, titles and property names anywhere in a schema: the model reads them all.
function scanSchema(node: unknown, path: string, ctx: Omit<ScanContext, 'where'>, out: Finding[], depth = 0): void {
  if (!isObject(node) || depth > MAX_SCHEMA_DEPTH) return;
  for (const key of ['description', 'title'] as const) {
    const value = Array.isArray(node) ? undefined : node[key];
    if (typeof value !== 'string') continue;
    const noun = `The schema ${key} at ${revealClip(path, 80)}`;
    out.push(...tagged(scanWith(value, { ...ctx, where: 'description' }, noun), `${path}.${key}`));
  }
  const props = Array.isArray(node) ? undefined : node.properties;
  if (isObject(props) && !Array.isArray(props)) {
    for (const name of Object.keys(props)) {
      // Other servers' tool names are not checked here: "query" or "path" are ordinary parameter names.
      const found = scanWith(name, { otherServers: [], where: 'name' }, `The parameter name ${quote(name)}`);
      out.push(...tagged(found, `${path}.properties`));
    }
  }
  // Strings end the walk, so a parameter that happens to be named "description" is still entered.
  for (const [key, child] of Object.entries(node)) scanSchema(child, `${path}.${key}`, ctx, out, depth + 1);
}

const tagged = (findings: Finding[], field: string) => findings.map((f) => ({ ...f, field }));

/** Scans a tool's name, titles, description and the descriptions inside its schemas. */
export function scanTool(tool: ToolDefinition, ctx: Omit<ScanContext, 'where'>): Finding[] {
  // Naming yourself is not a cross-server reference; a shared name is findShadowing's job.
  const own = tool.name.toLowerCase();
  const others = { otherServers: ctx.otherServers.map((s) => ({ ...s, tools: s.tools.filter((t) => t.toLowerCase() !== own) })) };
  const out: Finding[] = [];
  out.push(...tagged(scanWith(tool.name, { otherServers: [], where: 'name' }, 'The tool name'), 'name'));
  const texts: Array<[string, unknown, Where, string]> = [
    ['title', tool.title, 'name', 'The title'],
    ['annotations.title', isObject(tool.annotations) ? tool.annotations.title : undefined, 'name', 'The annotation title'],
    ['description', tool.description, 'description', 'The description'],
  ];
  for (const [field, value, where, noun] of texts) {
    if (typeof value === 'string') out.push(...tagged(scanWith(value, { ...others, where }, noun), field));
  }
  scanSchema(tool.inputSchema, 'inputSchema', others, out);
  scanSchema(tool.outputSchema, 'outputSchema', others, out);
  return out.sort(worstFirst);
}
