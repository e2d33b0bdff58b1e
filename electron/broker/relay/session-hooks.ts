// What a relayed session asks of whoever runs it (the broker, or `connect` in relay mode): the call gate's
// decision first, then its turning points. `S` is the session (relay-session.ts: SessionHooks).
import type { JsonRpcRequest } from '../../../shared/jsonrpc.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { GateVerdict, ToolCallContext } from '../calls/gate-contract.js';
import type { RefusedCall } from './protocol/refused-calls.js';

export interface RelayHooks<S> {
  decideToolCall(ctx: ToolCallContext): Promise<GateVerdict>;
  /** An allow known at once (a lease in `connect`), which skips the asynchronous decision. */
  quickVerdict?(session: S, toolName: string, args: unknown): Extract<GateVerdict, { forward: true }> | undefined;
  onToolsListed?(session: S, tools: ToolDefinition[]): void;
  onToolsChanged?(session: S): void;
  /**
   * A request the server sent the client (elicitation, sampling, roots): relayed, and surfaced.
   * `declined`: why Countersign declined it for the server instead (an imitation of its own form).
   */
  onServerRequest?(session: S, request: JsonRpcRequest, calls: string[], declined?: string): void;
  /**
   * A server's form imitates Countersign's approval form (elicitation-guard.ts): whether to decline it,
   * i.e. whether approval inside the client is on for this client. A failure to say declines it.
   */
  refuseImitation?(session: S): boolean | Promise<boolean>;
  /** The server's initialize result, as it passes to the client. */
  onInitialized?(session: S, result: Record<string, unknown>): void;
  /** What the client may see of a tools/list page; undefined passes it unchanged. */
  rewriteToolsList?(session: S, tools: ToolDefinition[]): ToolDefinition[] | undefined | Promise<ToolDefinition[] | undefined>;
  onClosed?(session: S): void;
  /** A forwarded tools/call as the line to write under `upId` (its own bytes, http/request-lane.ts); undefined: serialised. */
  requestLine?(request: JsonRpcRequest, upId: number): Buffer | undefined;
  /** Seconds before a forwarded tools/call counts as timed out upstream. */
  upstreamTimeoutMs(): number;
  /** A tools/call refused before it could be decided (its id in use, no decision reached): it goes to the log. */
  onRefused?(session: S, call: RefusedCall): void;
}
