// The client sessions the broker has open: relayed here (RelaySession), or run by `connect` in relay
// mode (BrokerHalf, which waits for its data and report connections by token). Also what each client
// has done across its sessions (its history, read by the call gate) and the limits each session's
// server process started under.
import type { Socket } from 'node:net';
import type { LimitsInForce } from '../../../shared/enforced-limits.js';
import { BrokerHalf } from '../relay-mode/broker/broker-half.js';

/** A client session as the broker tracks it: relayed here, or run by `connect` in relay mode. */
export interface BrokerSession {
  readonly id: string;
  readonly serverName: string;
  readonly clientKey: string;
  notifyToolsChanged(): void;
  close(why: string): Promise<void>;
}

/** What one client did across its open sessions. */
export interface ClientHistory {
  readLocalData: boolean;
  sessions: number;
  reads?: string[];
}

export class SessionRegistry {
  private readonly sessions = new Set<BrokerSession>();
  /** Relay-mode sessions waiting for their data connection, by attach token. */
  private readonly attaching = new Map<string, BrokerHalf>();
  /** Relay-mode sessions waiting for `connect`'s report connection, by its token. */
  private readonly reporting = new Map<string, BrokerHalf>();
  /** Each open session's server process: the limits it started under (read at every decision). */
  private readonly running = new Map<string, () => LimitsInForce | undefined>();
  private readonly histories = new Map<string, ClientHistory>();

  add(session: BrokerSession): void {
    this.sessions.add(session);
    if (session instanceof BrokerHalf) {
      this.running.set(session.id, () => session.limitsInForce);
      this.attaching.set(session.attachToken, session);
      this.reporting.set(session.reportToken, session);
    }
  }

  /** The limits a session's server process started under, once it started. */
  setRunning(sessionId: string, limits: () => LimitsInForce | undefined): void {
    this.running.set(sessionId, limits);
  }

  remove(session: BrokerSession): void {
    if (session instanceof BrokerHalf) {
      this.attaching.delete(session.attachToken);
      this.reporting.delete(session.reportToken);
    }
    this.sessions.delete(session);
    this.running.delete(session.id);
  }

  history(clientKey: string): ClientHistory {
    let h = this.histories.get(clientKey);
    if (!h) {
      h = { readLocalData: false, sessions: 0 };
      this.histories.set(clientKey, h);
    }
    return h;
  }

  /** A session of this client opened: its history lasts while any is open. */
  opened(clientKey: string): ClientHistory {
    const history = this.history(clientKey);
    history.sessions += 1;
    return history;
  }

  closed(clientKey: string, history: ClientHistory): void {
    history.sessions -= 1;
    if (history.sessions <= 0) this.histories.delete(clientKey);
  }

  /** The limits the server process of one session started under (undefined: not started, or none known). */
  limitsInForce(sessionId: string): LimitsInForce | undefined {
    return this.running.get(sessionId)?.();
  }

  /** Every running process of a server, by session. */
  runningLimits(server: string): LimitsInForce[] {
    return this.of(server)
      .map((s) => this.running.get(s.id)?.())
      .filter((r): r is LimitsInForce => !!r);
  }

  /** Open client sessions of one server. */
  of(server: string): BrokerSession[] {
    return [...this.sessions].filter((s) => s.serverName === server);
  }

  /** Tells every client of a server to list its tools again. */
  notifyToolsChanged(server: string): void {
    for (const s of this.sessions) if (s.serverName === server) s.notifyToolsChanged();
  }

  async closeAll(why: string, sessions: BrokerSession[] = [...this.sessions]): Promise<void> {
    await Promise.allSettled(sessions.map((s) => s.close(why)));
  }

  /** A relay-mode data connection: false when its token names no session waiting for one. */
  attachData(token: string, socket: Socket): boolean {
    const session = this.attaching.get(token);
    if (!session) return false;
    this.attaching.delete(token);
    session.attach(socket);
    return true;
  }

  /** A relay-mode report connection: false when its token names no session waiting for one. */
  attachReports(token: string, socket: Socket): boolean {
    const session = this.reporting.get(token);
    if (!session) return false;
    this.reporting.delete(token);
    return session.attachReports(socket);
  }

  /** Takes the reports every `connect` has written so far (before the log is read). */
  async drainReports(): Promise<void> {
    await Promise.all(this.halves().map((s) => s.drainReports()));
  }

  /** Every lease `connect` holds ends: its sessions ask the broker again. */
  revokeLeases(): void {
    for (const s of this.halves()) s.revoke();
  }

  /** Every `connect` of this client has dropped its leases given before a local read (or is closed). */
  async endLocalReadLeases(clientKey: string): Promise<void> {
    await Promise.all(
      this.halves()
        .filter((s) => s.clientKey === clientKey)
        .map((s) => s.revokeConfirmed()),
    );
  }

  private halves(): BrokerHalf[] {
    return [...this.sessions].filter((s): s is BrokerHalf => s instanceof BrokerHalf);
  }
}
