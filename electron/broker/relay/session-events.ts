// What every session reports to the broker, wherever it runs (relayed here, or in `connect`): its
// server's listing and first answer (how long the start took), its close, and a server's bad exit.
import type { ToolDefinition } from '../../../shared/tool.js';
import type { BrokerCore } from '../core/broker-core.js';
import type { ExitInfo } from '../upstream/stdio-upstream.js';
import type { BrokerSession, SessionRegistry } from './session-registry.js';

export class SessionEvents {
  constructor(
    private readonly core: BrokerCore,
    private readonly registry: SessionRegistry,
  ) {}

  /** What every session reports to the broker, wherever it runs. */
  forSession(serverName: string, clientKey: string) {
    const history = this.registry.opened(clientKey);
    const took = this.core.startTimes.begin();
    let answered = false;
    return {
      onListed: (tools: ToolDefinition[]): void => {
        this.core.lastTools.set(serverName, tools);
        this.core.trust.onListing(serverName, tools);
        this.core.emit({ type: 'servers-changed' });
      },
      onInitialized: (result: Record<string, unknown>): void => {
        // The first answer of this session's server: how long its start took (a note past 10 s).
        if (!answered) {
          answered = true;
          if (this.core.startTimes.record(serverName, took())) this.core.emit({ type: 'servers-changed' });
        }
        this.core.trust.onInitialized(serverName, result);
      },
      rewrite: (tools: ToolDefinition[]): ToolDefinition[] | undefined => this.core.trust.filterForClient(serverName, tools),
      onClosed: (s: BrokerSession): void => {
        this.registry.remove(s);
        this.core.rules.endSession(s.id);
        this.registry.closed(clientKey, history);
        this.core.emit({ type: 'servers-changed' });
      },
    };
  }

  /** A server that exited badly: why, for its view. */
  serverExited(name: string, exit: ExitInfo): void {
    if (exit.code === 0) return;
    const how = exit.startError ? `could not be started (${exit.startError})` : exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code}`;
    this.core.lastErrors.set(name, `${how}: ${exit.stderrTail.trim().slice(-300)}`);
    this.core.emit({ type: 'servers-changed' });
  }
}
