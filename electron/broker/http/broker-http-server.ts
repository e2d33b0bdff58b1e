// The broker's one HTTP server: MCP clients at /mcp/<server>, the UI API at /api/*, the UI itself at /.
// Loopback unless the person explicitly binds elsewhere.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Broker } from '../core/broker.js';
import { clientKey } from '../calls/client-key.js';
import { ApiBridge } from './api-bridge.js';
import { McpHttpEndpoint } from './mcp-endpoint.js';
import { checkHost, guardRequest, loopbackHosts, loopbackOrigins, sendRejection, type GuardOptions } from './request-guard.js';
import { serveStatic } from './static-files.js';

export interface HttpServerOptions {
  host?: string;
  port?: number;
  /** Bearer token MCP clients use (persisted in the data dir). */
  mcpToken: string;
  /** Bearer token of the UI API (memory only). */
  apiToken: string;
  rendererDir: string;
  maxBodyBytes?: number;
  /** Idle MCP sessions are closed after this long (mcp-endpoint.ts has the default). */
  idleTimeoutMs?: number;
}

export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export class BrokerHttpServer {
  private server?: Server;
  private mcp: McpHttpEndpoint;
  private api: ApiBridge;
  private guard?: { mcp: GuardOptions; api: GuardOptions; hosts: string[] };
  port = 0;

  constructor(
    private readonly broker: Broker,
    private readonly opts: HttpServerOptions,
  ) {
    this.mcp = new McpHttpEndpoint({
      maxBodyBytes: opts.maxBodyBytes,
      idleTimeoutMs: opts.idleTimeoutMs,
      onSession: async (serverName, transport, client) => {
        try {
          // Sessions of one named client share a history with its `connect` sessions; unnamed ones share theirs.
          await broker.openSession(serverName, transport, clientKey({ client }));
          return undefined;
        } catch (err) {
          // Refusals (unknown server, command awaiting consent, blocked by policy) explain themselves.
          return (err as Error).message;
        }
      },
      onRefused: (serverName, calls, client) => broker.logRefused(serverName, client, calls),
    });
    broker.setHttpSessions(() => this.mcp.openSessions());
    // Whoever holds the API token here is the browser UI (countersign serve).
    this.api = new ApiBridge(broker.apiFor('browser'));
  }

  async listen(): Promise<{ host: string; port: number }> {
    const host = this.opts.host ?? '127.0.0.1';
    const server = createServer((req, res) => void this.route(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    const hosts = loopbackHosts(this.port);
    const origins = loopbackOrigins(this.port);
    if (!isLoopbackHost(host)) {
      // The person chose this bind address, so requests naming it are expected.
      const named = host.includes(':') ? `[${host}]:${this.port}` : `${host}:${this.port}`;
      hosts.push(named);
      origins.push(`http://${named}`);
    }
    this.guard = {
      hosts,
      mcp: { allowedHosts: hosts, allowedOrigins: origins, token: this.opts.mcpToken },
      api: { allowedHosts: hosts, allowedOrigins: origins, token: this.opts.apiToken },
    };
    return { host, port: this.port };
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const guard = this.guard!;
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://placeholder').pathname;
    } catch {
      res.writeHead(400).end();
      return;
    }
    try {
      if (path.startsWith('/mcp/')) {
        const checked = guardRequest(req, guard.mcp);
        if (!checked.ok) return sendRejection(res, checked, 'close');
        const name = decodeURIComponent(path.slice('/mcp/'.length));
        return await this.mcp.handle(req, res, name);
      }
      if (path.startsWith('/api/')) {
        const checked = guardRequest(req, guard.api);
        if (!checked.ok) return sendRejection(res, checked, 'close');
        return await this.api.handle(req, res, path);
      }
      // Static files carry no secrets, but a rebinding page must not read them either.
      const host = checkHost(req.headers.host, guard.hosts);
      if (!host.ok) return sendRejection(res, host, 'close');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      return await serveStatic(this.opts.rendererDir, path, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`Countersign error: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.api.closeAll();
    await this.mcp.closeAll();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
