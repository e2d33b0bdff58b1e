// One relayed session's view of the revision in use. A 2026-07-28 session has no initialize: the client's
// envelope (seen on its requests) names the client and is repeated on Countersign's own requests, and the
// server's identity comes from `server/discover` (the client's own, or one Countersign sends before the
// first call is decided), so pins hold on every path.
import { isResult, type JsonRpcMessage } from '../../../../shared/jsonrpc.js';
import { envelopeOf, identityFromDiscover, withEnvelope, type Envelope } from './era.js';

export class SessionEra {
  /** The client's latest 2026-07-28 envelope; undefined while the session speaks 2025-11-25. */
  envelope?: Envelope;
  private identity?: Promise<void>;
  private identified = false;

  get modern(): boolean {
    return this.envelope !== undefined;
  }

  /** Every client request passes here; returns its envelope when it has one. */
  observe(message: JsonRpcMessage): Envelope | undefined {
    const envelope = envelopeOf(message);
    if (envelope) this.envelope = envelope;
    return envelope;
  }

  /** Params for Countersign's own request to the server, in the session's revision. */
  ownParams(params: Record<string, unknown>): Record<string, unknown> {
    return withEnvelope(params, this.envelope);
  }

  /** The client's own server/discover was answered: that is the server's identity for this session. */
  discovered(response: JsonRpcMessage, report: (identity: Record<string, unknown>) => void): void {
    if (!this.envelope || !isResult(response)) return;
    this.identified = true;
    report(identityFromDiscover(response.result, this.envelope.revision));
  }

  /**
   * Before a call of a 2026-07-28 session is decided, the server's identity is known and reported (so a
   * version pin is checked). A server that does not say who it is is reported without serverInfo, which
   * a version pin refuses: identity that cannot be established is not trusted.
   */
  ensureIdentity(
    discover: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
    report: (identity: Record<string, unknown>) => void,
  ): Promise<void> {
    const envelope = this.envelope;
    if (!envelope || this.identified) return Promise.resolve();
    this.identity ??= discover(this.ownParams({}))
      .then(
        (result) => identityFromDiscover(result, envelope.revision),
        () => identityFromDiscover(undefined, envelope.revision),
      )
      .then((identity) => {
        this.identified = true;
        report(identity);
      });
    return this.identity;
  }
}
