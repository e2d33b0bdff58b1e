// What the scans say about a server and its tools, among every server's listing: the description scan,
// name shapes and look-alikes, the same tool name on two servers, and the scan of a call's arguments.
import type { Finding } from '../../../shared/findings.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import { escapeControl } from '../../../shared/escape.js';
import { scanTool, findShadowing, type ServerTools } from '../checks/scan/index.js';
import { scanArguments } from '../checks/argument-checks.js';
import { confusableFindings, identityFindings, nameShapeFindings, skeletonsOf } from './name-checks.js';
import type { TrustRecords } from './trust-records.js';

export type Listings = Map<string, ToolDefinition[]>;

export class TrustFindings {
  /** Findings depend on the tool and on every server's listing: cached until any listing changes. */
  private readonly cache = new WeakMap<ToolDefinition, { generation: number; server: string; findings: Finding[] }>();
  private listingGeneration = 0;

  constructor(private readonly t: TrustRecords) {}

  /** A server listed its tools: every cached finding may be stale. */
  listingChanged(): void {
    this.listingGeneration += 1;
  }

  toolFindings(server: string, tool: ToolDefinition, listings: Listings): Finding[] {
    const cached = this.cache.get(tool);
    if (cached?.generation === this.listingGeneration && cached.server === server) return cached.findings;
    const findings = scanToolAmong(server, tool, listings);
    this.cache.set(tool, { generation: this.listingGeneration, server, findings });
    return findings;
  }

  /** What an asked call's card shows of the server, its tool and the arguments' strings (calls/gate-facts.ts). */
  async callFindings(
    server: string,
    tool: ToolDefinition | undefined,
    args: unknown,
    listings: Listings,
  ): Promise<{ identity: Finding[]; tool: Finding[]; arguments: Finding[] }> {
    const identity = this.identityFindingsOf(server);
    const toolFindings = tool ? this.toolFindings(server, tool, listings) : [];
    return { identity, tool: toolFindings, arguments: await argumentFindings(server, args, listings) };
  }

  /** What the Servers screen says about the server itself, for the cards of its calls too. */
  identityFindingsOf(name: string): Finding[] {
    return this.serverFindings(name, this.t.identity(name)?.serverInfo?.name) ?? [];
  }

  /** About the server itself: the name it claims, and an id that looks like another server's. */
  serverFindings(name: string, claimed: string | undefined): Finding[] | undefined {
    const servers = this.t.opts.settings.listServers();
    const findings = identityFindings(name, claimed, servers);
    const keys = new Set(skeletonsOf(name));
    const alike = Object.keys(servers).filter((id) => id !== name && skeletonsOf(id).some((k) => keys.has(k)));
    if (alike.length) {
      findings.push({
        code: 'confusable-name',
        severity: 'warning',
        field: 'name',
        message: `The server id '${escapeControl(name)}' looks like ${alike.map((a) => `'${escapeControl(a)}'`).join(', ')}: make sure each is the server you mean.`,
        excerpt: alike.map((a) => escapeControl(a)).join(', '),
      });
    }
    return findings.length ? findings : undefined;
  }
}

function otherServers(server: string, listings: Listings): ServerTools[] {
  return [...listings].filter(([s]) => s !== server).map(([s, tools]) => ({ server: s, tools: tools.map((t) => t.name) }));
}

function scanToolAmong(server: string, tool: ToolDefinition, listings: Listings): Finding[] {
  const findings = scanTool(tool, { otherServers: otherServers(server, listings) });
  findings.push(...nameShapeFindings(tool.name, 'tool'), ...confusableFindings(server, tool.name, listings));
  for (const shadow of findShadowing([...listings].map(([s, tools]) => ({ server: s, tools: tools.map((t) => t.name) })))) {
    if (!shadow.servers.some((x) => x.server === server && x.tool === tool.name)) continue;
    const others = shadow.servers
      .filter((x) => x.server !== server)
      .map((x) => `'${x.server}'`)
      .join(', ');
    findings.push({
      code: 'cross-server-reference',
      severity: shadow.lookalike ? 'danger' : 'warning',
      message: `${shadow.lookalike ? 'A look-alike of this tool name' : 'The same tool name'} is also offered by ${others}: the model may call the wrong one.`,
      excerpt: shadow.servers.map((x) => `${x.server}/${x.tool}`).join(', '),
    });
  }
  return findings;
}

/** Scans the arguments' strings; long texts are scanned in slices that let the event loop run. */
export function argumentFindings(server: string, args: unknown, listings: Listings): Promise<Finding[]> {
  return scanArguments(args, otherServers(server, listings));
}
