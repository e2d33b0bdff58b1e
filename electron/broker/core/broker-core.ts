// What the API (broker-api.ts) and the feature modules (trust/server-limits, policy/policy-path,
// store/unsealed-grants, doctor/core-context, core/server-service) use of the broker: its stores and
// services, how a change is recorded and announced, and its sessions as counts. They take this, not
// the Broker class, so none of them imports the module that wires them together.
import type { BrokerEvent, BrokerStatus, ServerConfig, Settings } from '../../../shared/api.js';
import type { LimitsInForce } from '../../../shared/enforced-limits.js';
import type { SandboxSupport } from '../../../shared/limits.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { AuditGuard } from '../audit/audit-guard.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditExport } from '../audit-export/audit-export.js';
import type { Change } from '../audit/change-entry.js';
import type { InlineApprovalSettings } from '../calls/inline-approval.js';
import type { PendingQueue } from '../calls/pending-queue.js';
import type { RuleBook } from '../calls/rule-book.js';
import type { ClientConfigs } from '../clients/client-configs.js';
import type { StartTimes } from '../doctor/slow-start.js';
import type { GrantSeal } from '../store/grant-seal.js';
import type { SettingsStore } from '../store/settings-store.js';
import type { LaunchRequests } from '../trust/launch-requests.js';
import type { PolicyPathChoice } from '../policy/policy-path.js';
import type { TrustManager } from '../trust/trust-manager.js';
import type { HideSpec } from '../upstream/sandbox/hidden-paths.js';
import type { BrokerOptions } from './broker-options.js';
import type { UndoService } from '../undo/undo-service.js';

export interface BrokerCore {
  readonly opts: BrokerOptions;
  readonly store: SettingsStore;
  readonly seal: GrantSeal;
  readonly audit: AuditLog;
  readonly auditGuard: AuditGuard;
  readonly pending: PendingQueue;
  readonly trust: TrustManager;
  readonly rules: RuleBook;
  readonly clients: ClientConfigs;
  readonly launchRequests: LaunchRequests;
  readonly undo: UndoService;
  readonly auditExport: AuditExport;
  readonly inlineApproval: InlineApprovalSettings;
  /** Each server's last complete tool listing, as a client (or a probe) saw it. */
  readonly lastTools: Map<string, ToolDefinition[]>;
  readonly lastErrors: Map<string, string>;
  readonly startTimes: StartTimes;
  readonly warnings: readonly string[];
  readonly endpoints: Pick<BrokerStatus, 'httpUrl' | 'mcpUrlTemplate'>;
  readonly httpSessions?: () => NonNullable<BrokerStatus['httpSessions']>;
  paused: boolean;

  /** Writes a change of state to the audit log. */
  record(change: Change): void;
  emit(event: BrokerEvent): void;
  subscribe(listener: (event: BrokerEvent) => void): () => void;

  requireServer(name: string): ServerConfig;
  effectiveSettings(): Settings;
  policyChoice(): PolicyPathChoice;
  sandbox(): Promise<SandboxSupport>;
  sandboxHide(config: ServerConfig | undefined): HideSpec;

  sessionsOf(name: string): number;
  runningLimits(server: string): LimitsInForce[];
  closeSessionsOf(name: string, why: string): Promise<void>;
  notifyToolsChanged(name: string): void;
  drainReports(): Promise<void>;
  /** Starts the server briefly (through the relay) to learn its identity and tools. */
  probe(name: string): Promise<ToolDefinition[]>;
}
