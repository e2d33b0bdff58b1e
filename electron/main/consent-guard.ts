// The desktop app's consent boundary. The renderer is treated as compromisable, so anything that
// starts or changes a command, or lets calls through without asking, is only a request from it: the
// main process shows a native dialog with exactly what would happen, and only that dialog's confirm
// acts. Every API method is classified here; a new method fails to typecheck until it is.
import type { ClientId, ClientScanOptions, ClientServerView, ServerConfig, ServerView, UndoTarget, UnsealedRef, WrapOptions } from '../../shared/api.js';
import { API_METHODS } from '../../shared/api-schema.js';
import { isLooser, NO_LIMITS, type LimitsProfile } from '../../shared/limits.js';
import type { ApiMethod, CountersignApi } from '../../shared/api.js';
import { consentDialog, type ConsentDialogOptions, type ConsentRequest, type LaunchShown } from './consent-dialog.js';
import { buildScope, isLooserRule, ruleText, type RuleRequest } from '../../shared/rules.js';
import type { PendingCall } from '../../shared/api.js';
import { exportTargets } from '../../shared/audit-export-schema.js';

/** The rule a decision would save, in words, built from the pending call as the broker will build it. */
function requestText(call: PendingCall, request: RuleRequest): string {
  const built = buildScope(request.scope, call.tool, call.arguments);
  if ('error' in built) throw new Error(built.error);
  const lifetime = request.lifetime;
  return ruleText({
    id: '',
    server: call.server,
    tool: call.tool,
    action: 'allow',
    createdAt: '',
    scope: built.scope,
    expiresAt: lifetime.kind === 'minutes' ? new Date(Date.now() + lifetime.minutes * 60_000).toISOString() : undefined,
    session: lifetime.kind === 'session' ? call.client.session : undefined,
    coversExfiltration: request.coversExfiltration,
  });
}

export type GuardedApi = Omit<CountersignApi, 'subscribe'>;

/**
 * free: reads, decisions on pending calls, and changes that only take something away.
 * consent: always asks. ask-if: asks in the cases its handler says (trust but not untrust, …).
 */
export const CONSENT_POLICY = {
  getStatus: 'free',
  listPending: 'free',
  listLaunchRequests: 'free',
  listServers: 'free',
  listRules: 'free',
  getSettings: 'free',
  queryLog: 'free',
  listChanges: 'free',
  readFileForPreview: 'free',
  removeServer: 'free',
  removeRule: 'free',
  setPaused: 'free',
  addServer: 'consent',
  importServers: 'consent',
  approveLaunch: 'consent',
  pinServer: 'consent',
  setLimits: 'ask-if',
  // Letting a server run without limits this machine cannot enforce asks; requiring them again only takes away.
  setRunWithoutLimits: 'ask-if',
  listClients: 'free',
  previewWrap: 'free',
  previewUnwrap: 'free',
  wrapClient: 'consent',
  unwrapClient: 'consent',
  runDoctor: 'free',
  setTrust: 'ask-if',
  unpinServer: 'ask-if',
  reviewChanges: 'ask-if',
  updateSettings: 'ask-if',
  decide: 'ask-if',
  updateRule: 'ask-if',
  // Confirming a grant written by hand makes it take effect; discarding one only takes it away.
  listUnsealed: 'free',
  discardUnsealed: 'free',
  confirmUnsealed: 'consent',
  // Letting a client's own form answer pending calls asks; turning it off only takes away.
  listInlineApproval: 'free',
  setInlineApproval: 'ask-if',
  // Undo writes files: always a native dialog listing them, bound to the preview's hash.
  listUndoable: 'free',
  previewUndo: 'free',
  undo: 'consent',
} as const satisfies Record<ApiMethod, 'free' | 'consent' | 'ask-if'>;

export interface DialogAnswer {
  response: number;
  checkboxChecked?: boolean;
}

export interface ConsentGuardDeps {
  /** dialog.showMessageBox with these options, modal to the app window when there is one. */
  showDialog(options: ConsentDialogOptions): Promise<DialogAnswer>;
  /** The hash the broker gives a config (for "also let it run" when adding). */
  launchHash(config: ServerConfig): string;
  /** How a client config is read on import (the broker's own parser). */
  pickLaunch(raw: unknown): ServerConfig;
}

/** The person cancelled the dialog, or another was already open: nothing changed. */
export class ConsentDeclinedError extends Error {
  override name = 'ConsentDeclinedError';
}

const q = (name: string): string => `'${name}'`;

export function launchShown(config: ServerConfig, hash?: string): LaunchShown {
  return 'url' in config
    ? { url: config.url, headerNames: Object.keys(config.headers ?? {}), envNames: [], hash }
    : {
        commandLine: [config.command, ...(config.args ?? [])],
        cwd: config.cwd,
        envNames: Object.keys(config.env ?? {}),
        headerNames: [],
        limits: config.limits,
        hash,
      };
}

function launchShownOf(v: ClientServerView): LaunchShown {
  return { commandLine: v.commandLine, cwd: v.cwd, url: v.url, envNames: v.envNames, headerNames: v.headerNames };
}

export function guardConsent(api: GuardedApi, deps: ConsentGuardDeps): GuardedApi {
  let asking = false;
  /** Shows one dialog at a time: a page cannot stack requests and hope for a tired click. */
  const ask = async (request: ConsentRequest): Promise<DialogAnswer> => {
    if (asking) throw new ConsentDeclinedError('Countersign is already asking you to confirm something: nothing changed.');
    asking = true;
    try {
      const answer = await deps.showDialog(consentDialog(request));
      if (answer.response !== 1) throw new ConsentDeclinedError('You did not confirm in Countersign’s dialog, so nothing changed.');
      return answer;
    } finally {
      asking = false;
    }
  };
  const view = async (name: string): Promise<ServerView | undefined> => (await api.listServers()).find((s) => s.name === name);
  /** The view the renderer claims to have shown, or a refusal before any dialog. */
  const shownView = async (name: string, launchHash: string, listingHash?: string | null): Promise<ServerView | undefined> => {
    const v = await view(name);
    if (!v) return undefined; // the broker explains an unknown name
    if (v.launch.hash !== launchHash || (listingHash !== null && v.listingHash !== listingHash)) {
      throw new ConsentDeclinedError(`${q(name)} changed after it was shown to you, so nothing was changed. Look at it again.`);
    }
    return v;
  };

  const guarded: Record<ApiMethod, (...args: never[]) => Promise<unknown>> = {} as never;
  const handlers: Partial<Record<ApiMethod, (...args: never[]) => Promise<unknown>>> = {
    addServer: async (name: string, config: ServerConfig) => {
      const answer = await ask({ kind: 'add-server', name, launch: launchShown(config) });
      await api.addServer(name, config);
      if (answer.checkboxChecked && 'command' in config) await api.approveLaunch(name, deps.launchHash(config));
    },
    importServers: async (input: Record<string, unknown>) => {
      const servers = typeof input.mcpServers === 'object' && input.mcpServers !== null ? (input.mcpServers as Record<string, unknown>) : input;
      const shown = Object.entries(servers).flatMap(([name, raw]) => {
        try {
          return [{ name, launch: launchShown(deps.pickLaunch(raw)) }];
        } catch {
          return []; // the broker skips it and says why
        }
      });
      if (shown.length) await ask({ kind: 'import-servers', servers: shown });
      return api.importServers(input);
    },
    approveLaunch: async (name: string, launchHash: string) => {
      const v = await shownView(name, launchHash, null);
      if (v) await ask({ kind: 'approve-launch', name, launch: v.launch });
      return api.approveLaunch(name, launchHash);
    },
    setLimits: async (name: string, limits: LimitsProfile, launchHash?: string) => {
      // Tighter limits only take away: they apply at once. Looser ones ask, bound to the launch shown.
      const v = await view(name);
      const from = v?.limits?.profile ?? NO_LIMITS;
      if (v && isLooser(limits, from)) {
        if (launchHash === undefined) return api.setLimits(name, limits); // saved; the launch waits for approval again
        await shownView(name, launchHash, null);
        await ask({ kind: 'loosen-limits', name, launch: v.launch, from, to: limits });
        return api.setLimits(name, limits, launchHash);
      }
      return launchHash === undefined ? api.setLimits(name, limits) : api.setLimits(name, limits, launchHash);
    },
    setRunWithoutLimits: async (name: string, allowed: boolean, launchHash?: string) => {
      if (!allowed) return api.setRunWithoutLimits(name, false);
      if (launchHash === undefined) return api.setRunWithoutLimits(name, true); // the broker refuses it and says why
      const v = await shownView(name, launchHash, null);
      if (v) await ask({ kind: 'run-without-limits', name, launch: v.launch, reason: v.limits?.unenforced?.reason ?? 'they are enforced here now' });
      return api.setRunWithoutLimits(name, true, launchHash);
    },
    setTrust: async (name: string, trusted: boolean, seen?: { launchHash: string; listingHash?: string }) => {
      if (trusted && seen) {
        const v = await shownView(name, seen.launchHash, seen.listingHash);
        if (v) await ask({ kind: 'trust', name, launch: v.launch, tools: v.tools.map((t) => ({ name: t.definition.name, readOnly: t.hints.readOnlyHint })) });
      }
      return trusted ? api.setTrust(name, true, seen) : api.setTrust(name, false);
    },
    pinServer: async (name: string, seen: { launchHash: string; listingHash?: string }) => {
      const v = await shownView(name, seen.launchHash, seen.listingHash);
      if (v) await ask({ kind: 'pin', name, launch: v.launch, tools: v.tools.map((t) => t.definition.name) });
      return api.pinServer(name, seen);
    },
    unpinServer: async (name: string) => {
      const v = await view(name);
      if (v?.quarantine?.length) await ask({ kind: 'unpin-quarantined', name, reasons: v.quarantine });
      return api.unpinServer(name);
    },
    reviewChanges: async (server: string, action: 'accept' | 'reject', tools?: Array<{ name: string; hash?: string }>, identityHash?: string) => {
      if (action === 'accept') {
        const changes = (await api.listChanges()).find((c) => c.server === server);
        const named = (tools ?? []).map((t) => ({ name: t.name, kind: changes?.tools.find((c) => c.name === t.name)?.kind ?? 'unknown' }));
        if (named.length || identityHash) await ask({ kind: 'accept-changes', server, tools: named, identity: identityHash !== undefined });
      }
      const args = [server, action, ...(tools ? [tools] : []), ...(identityHash !== undefined ? [identityHash] : [])] as Parameters<
        GuardedApi['reviewChanges']
      >;
      return api.reviewChanges(...args);
    },
    updateSettings: async (patch: Parameters<GuardedApi['updateSettings']>[0]) => {
      // Setting, replacing or removing the policy path asks: a policy's blocks and pins go with it.
      if (patch.policyPath !== undefined) {
        const status = (await api.getStatus()).policy;
        // The person's (sealed) path, or the one applied while the sealed records cannot be read.
        const current = (await api.getSettings()).policyPath ?? (status?.from === 'unconfirmed' ? status.path : undefined);
        if ((patch.policyPath ?? undefined) !== current) await ask({ kind: 'policy-path', path: patch.policyPath, from: current });
      }
      // Pointing the audit export somewhere sends the whole log there; turning it off stops a copy: both ask.
      if (patch.auditExport !== undefined) {
        const current = (await api.getSettings()).auditExport;
        await ask({ kind: 'audit-export', to: patch.auditExport && exportTargets(patch.auditExport), from: current ? exportTargets(current) : [] });
      }
      return api.updateSettings(patch);
    },
    wrapClient: async (client: ClientId, opts: WrapOptions, planHash: string) => {
      const preview = await api.previewWrap(client, opts);
      if (preview.planHash !== planHash)
        throw new ConsentDeclinedError(`${q(client)}'s config changed after it was shown to you, so nothing was written. Look at the preview again.`);
      const servers = new Map(
        (await api.listClients(opts)).find((c) => c.id === client)?.files.flatMap((f) => f.servers.map((v) => [`${f.path}\0${v.name}`, v] as const)) ?? [],
      );
      await ask({
        kind: 'wrap-client',
        client,
        files: preview.files.map((f) => ({
          path: f.path,
          entries: f.entries
            .filter((e) => e.action === 'add' || e.action === 'reuse' || e.action === 'update')
            .map((e) => {
              const v = servers.get(`${f.path}\0${e.entry}`);
              return { entry: e.entry, action: e.action, server: e.server, launch: v ? launchShownOf(v) : undefined };
            }),
        })),
      });
      return api.wrapClient(client, opts, planHash);
    },
    unwrapClient: async (client: ClientId, opts: ClientScanOptions, planHash?: string) => {
      const preview = await api.previewUnwrap(client, opts);
      if (planHash !== undefined && preview.planHash !== planHash) {
        throw new ConsentDeclinedError(`${q(client)}'s config changed after it was shown to you, so nothing was written. Look at the preview again.`);
      }
      await ask({
        kind: 'unwrap-client',
        client,
        files: preview.files.map((f) => ({ path: f.path, how: f.how, entries: f.entries.map((e) => ({ entry: e.entry, outcome: e.outcome })) })),
      });
      // Bound to the plan the dialog showed.
      return api.unwrapClient(client, opts, preview.planHash);
    },
    undo: async (target: UndoTarget, previewHash: string, opts?: { confirmConflicts?: boolean }) => {
      const preview = await api.previewUndo(target);
      if (preview.hash !== previewHash)
        throw new ConsentDeclinedError('The files changed after the undo preview was shown to you, so nothing was written. Look at it again.');
      // Refused before the dialog, as the core would refuse after it: the person is never asked to
      // overwrite what the page did not confirm.
      if (preview.conflicts && !opts?.confirmConflicts)
        throw new ConsentDeclinedError(`${preview.conflicts} file(s) changed since the call; nothing was written. Confirm the conflict first.`);
      await ask({
        kind: 'undo',
        calls: preview.calls.map((c) => `${c.tool} on ${c.server} at ${c.time}`),
        files: preview.files.map((f) => ({ path: f.path, action: f.action, conflict: f.conflict, blocked: f.blocked })),
      });
      // Bound to the preview the dialog showed.
      return api.undo(target, preview.hash, opts);
    },
    confirmUnsealed: async (ref: UnsealedRef) => {
      const grant = (await api.listUnsealed()).find((g) => g.kind === ref.kind && g.server === ref.server && g.hash === ref.hash && g.ruleId === ref.ruleId);
      if (!grant)
        throw new ConsentDeclinedError(
          `The hand-made ${ref.kind} for ${q(ref.server)} is no longer what was shown to you, so nothing was confirmed. Look at it again.`,
        );
      if (grant.kind === 'rule') await ask({ kind: 'always-allow', server: grant.server, tool: grant.tool ?? '' });
      else if (grant.kind === 'policy') await ask({ kind: 'policy-path', path: grant.path ?? '', from: (await api.getSettings()).policyPath });
      else if (grant.kind === 'launch') await ask({ kind: 'approve-launch', name: grant.server, launch: grant.launch! });
      else {
        const v = await view(grant.server);
        await ask({
          kind: 'trust',
          name: grant.server,
          launch: grant.launch!,
          tools: (v?.tools ?? []).map((t) => ({ name: t.definition.name, readOnly: t.hints.readOnlyHint })),
        });
      }
      return api.confirmUnsealed(ref);
    },
    setInlineApproval: async (client: string, enabled: boolean) => {
      if (enabled) await ask({ kind: 'inline-approval', client });
      return api.setInlineApproval(client, enabled);
    },
    decide: async (id: string, decision: Parameters<GuardedApi['decide']>[1]) => {
      if (decision.kind === 'always-allow') {
        const call = (await api.listPending()).find((c) => c.id === id);
        if (call) await ask({ kind: 'always-allow', server: call.server, tool: call.tool });
      }
      // A rule for this session that stays behind the exfiltration guard is no wider than "allow for this session".
      if (decision.kind === 'allow-rule' && (decision.rule.lifetime.kind !== 'session' || decision.rule.coversExfiltration)) {
        const call = (await api.listPending()).find((c) => c.id === id);
        if (call) await ask({ kind: 'allow-rule', server: call.server, tool: call.tool, rule: requestText(call, decision.rule) });
      }
      return api.decide(id, decision);
    },
    updateRule: async (id: string, patch: Parameters<GuardedApi['updateRule']>[1]) => {
      const before = (await api.listRules()).find((r) => r.id === id);
      if (before) {
        const next = {
          ...before,
          ...(patch.expiresAt !== undefined ? { expiresAt: patch.expiresAt ?? undefined } : {}),
          ...(patch.coversExfiltration !== undefined ? { coversExfiltration: patch.coversExfiltration } : {}),
        };
        if (isLooserRule(next, before)) await ask({ kind: 'allow-rule', server: before.server, tool: before.tool, rule: ruleText(next), change: true });
      }
      return api.updateRule(id, patch);
    },
  };

  const methods = new Set<string>([...API_METHODS, ...Object.keys(CONSENT_POLICY)]);
  for (const method of methods) {
    const policy = (CONSENT_POLICY as Record<string, string>)[method];
    const target = (api as unknown as Record<string, ((...a: unknown[]) => Promise<unknown>) | undefined>)[method];
    const handler = handlers[method as ApiMethod];
    let fn: (...args: unknown[]) => Promise<unknown>;
    if (policy === 'free' && target) fn = (...args) => target.apply(api, args);
    else if (handler) fn = handler as (...args: unknown[]) => Promise<unknown>;
    else if (policy === 'consent' && target) {
      // A guarded method without its own dialog (a client wrap, …): show the request as it came.
      fn = async (...args) => {
        await ask({ kind: 'other', method, args });
        return target.apply(api, args);
      };
    } else fn = async () => Promise.reject(new Error(`${method} is not available in this version of Countersign.`));
    (guarded as Record<string, unknown>)[method] = fn;
  }
  return guarded as unknown as GuardedApi;
}
