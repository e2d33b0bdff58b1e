// Shadowing: one tool name offered by more than one server, so the model may call the wrong one.
// Names are compared as a model reads them: compatibility forms folded (NFKC), invisible characters
// (the one set, shared/text/invisible.ts) dropped, case ignored.
import { stripInvisible } from '../../../../shared/text/invisible.js';
import type { ServerTools } from './context.js';

export interface Shadowing {
  /** The shared name as the first server spells it (escape before showing). */
  tool: string;
  /** Every server offering it, with its exact spelling. */
  servers: Array<{ server: string; tool: string }>;
  /** True when the spellings differ only by case, compatibility forms or invisible characters. */
  lookalike: boolean;
}

/** A tool name as a model picking by name reads it: two names that fold alike shadow each other. */
export const foldToolName = (name: string): string => stripInvisible(name.normalize('NFKC')).toLowerCase();

/** Tool names offered by more than one server: the model may call the wrong one. */
export function findShadowing(servers: ServerTools[]): Shadowing[] {
  const groups = new Map<string, Array<{ server: string; tool: string }>>();
  for (const { server, tools } of servers) {
    for (const tool of new Set(tools)) {
      const group = groups.get(foldToolName(tool)) ?? [];
      if (!group.some((g) => g.server === server && g.tool === tool)) group.push({ server, tool });
      groups.set(foldToolName(tool), group);
    }
  }
  const shadowed: Shadowing[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    if (!first || new Set(group.map((g) => g.server)).size < 2) continue;
    shadowed.push({ tool: first.tool, servers: group, lookalike: group.some((g) => g.tool !== first.tool) });
  }
  return shadowed;
}
