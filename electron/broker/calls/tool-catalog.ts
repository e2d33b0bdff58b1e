// The tools one session's server offers: gathered from the client's own (paged) listings, or listed by
// the broker itself when a call names a tool it does not know yet.
import type { ToolDefinition } from '../../../shared/tool.js';

/** Lists one page of tools upstream; resolves with the tools/list result. */
export type ListPage = (cursor: string | undefined) => Promise<Record<string, unknown>>;

const MAX_PAGES = 100;

function toolsOf(result: Record<string, unknown>): ToolDefinition[] {
  const list = Array.isArray(result.tools) ? (result.tools as unknown[]) : [];
  return list.filter((t): t is ToolDefinition => !!t && typeof t === 'object' && typeof (t as ToolDefinition).name === 'string');
}

export class ToolCatalog {
  private tools?: Map<string, ToolDefinition>;
  private complete = false;
  private stale = false;
  private pages?: Map<string, ToolDefinition>;
  /** Bumped whenever a definition may have changed. */
  generation = 0;

  constructor(
    private readonly listPage: ListPage,
    private readonly onListed: (tools: ToolDefinition[]) => void,
  ) {}

  known(): ToolDefinition[] {
    return [...(this.tools?.values() ?? [])];
  }

  /** The server said its tools changed: the next lookup lists them again. */
  markStale(): void {
    this.stale = true;
    this.generation += 1;
  }

  /** A page of a listing the client asked for. A request without a cursor starts a fresh listing. */
  recordPage(result: Record<string, unknown>, hadCursor: boolean): void {
    if (!hadCursor) this.pages = undefined;
    this.accept(toolsOf(result), typeof result.nextCursor === 'string');
  }

  private accept(page: ToolDefinition[], more: boolean): void {
    const acc = this.pages ?? new Map<string, ToolDefinition>();
    for (const t of page) acc.set(t.name, t);
    if (more) {
      this.pages = acc;
      return;
    }
    this.pages = undefined;
    this.tools = acc;
    this.generation += 1;
    this.complete = true;
    this.stale = false;
    this.onListed([...acc.values()]);
  }

  /** The tool's definition, listing the server's tools first when they are unknown or stale. */
  async definition(name: string): Promise<ToolDefinition | undefined> {
    if (this.tools?.has(name) && !this.stale && this.complete) return this.tools.get(name);
    await this.refresh();
    return this.tools?.get(name);
  }

  /** Lists every page itself. */
  async refresh(): Promise<void> {
    const all: ToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.listPage(cursor);
      all.push(...toolsOf(result));
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    this.pages = undefined;
    this.accept(all, false);
  }
}
