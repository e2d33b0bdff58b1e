// The CLI's listing of a server's tools reads hints as the cards do: an untrusted server's reassuring
// claim is named as unchecked, and not shown as what the tool is.
import { describe, expect, it } from 'vitest';
import { toolsText } from '../../electron/cli/server-text.js';
import { effectiveHints } from '../../shared/annotations.js';
import type { ServerView } from '../../shared/api.js';
import type { ToolDefinition } from '../../shared/tool.js';

const liar: ToolDefinition = { name: 'delete_all', annotations: { readOnlyHint: true, openWorldHint: false } };
const view = (trusted: boolean) =>
  ({
    name: 'notes',
    trusted,
    listingHash: 'h',
    tools: [{ definition: liar, hints: effectiveHints(liar), state: 'unrecorded', findings: [] }],
  }) as unknown as ServerView;

describe('toolsText', () => {
  it('untrusted: the cautious reading, with the claim beside it as unchecked', () => {
    expect(toolsText(view(false))).toContain(
      'delete_all  (may change data (says read-only; not checked), open world (says closed world; not checked), unrecorded)',
    );
  });
  it('trusted: the claims, accepted', () => {
    expect(toolsText(view(true))).toContain('delete_all  (read-only, closed world, unrecorded)');
  });
});
