// The transport to a server for one relayed session: one a test injects, a URL server's, or a local
// process started under its limits (server-sandbox.ts).
import type { ServerConfig } from '../../../shared/api.js';
import type { LimitsInForce } from '../../../shared/enforced-limits.js';
import type { MessageTransport } from '../wire/transport.js';
import type { SandboxOptions } from './server-process.js';
import { StdioUpstream, type ExitInfo } from './stdio-upstream.js';
import { HttpUpstream } from './url-upstream.js';

export interface UpstreamStart {
  /** Replaces the start (tests: in-process servers); undefined starts the config as usual. */
  injected?: (name: string, config: ServerConfig) => MessageTransport | undefined;
  sandbox: (name: string, config: ServerConfig) => SandboxOptions;
  onStderr: (name: string, text: string) => void;
  onExit: (name: string, exit: ExitInfo) => void;
  /** The limits the process started under, read at every decision of its session. */
  started: (limits: () => LimitsInForce | undefined) => void;
  /** Takes a server's line before it is parsed (an HTTP session's result lane). */
  takeLine?: (line: Buffer) => boolean;
}

export function startUpstream(name: string, config: ServerConfig, how: UpstreamStart): MessageTransport {
  const injected = how.injected?.(name, config);
  if (injected) return injected;
  if ('url' in config) return new HttpUpstream(config.url, config.headers);
  const upstream = new StdioUpstream(config, {
    takeLine: how.takeLine,
    sandbox: how.sandbox(name, config),
    onStderr: (text) => how.onStderr(name, text),
    onExit: (exit) => how.onExit(name, exit),
  });
  how.started(() => upstream.limitsInForce);
  return upstream;
}
