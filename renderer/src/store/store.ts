// The renderer's thin mirror of broker state. The broker owns the truth; this store loads it, applies
// events, and refetches what an event says has changed.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type {
  ApiMethod,
  BrokerEvent,
  BrokerStatus,
  CountersignApi,
  DecideResult,
  DecisionRequest,
  PendingCall,
  ServerChanges,
  Settings,
  AuditEntry,
  LaunchRequest,
  UndoableCall,
} from '../../../shared/api';
import type { Rule } from '../../../shared/decision';
import { escapeControl } from '../../../shared/escape';
import { errorText, isUnsupported } from '../bridge/api-error';
import type { NotifyPermission } from '../notify/browser-notifications';
import { coalesce } from './coalesce';
import { normalizeCall, normalizeServer, type UiServer } from './normalize';
import { insertPending, neighbourAfterRemoval, sortPending } from './pending-order';

export interface Notice {
  id: number;
  kind: 'info' | 'error';
  text: string;
}

export interface StoppedCall {
  id: string;
  tool: string;
  server: string;
  waitedMs: number;
}

/** One message of the polite live region; a new id is a new announcement. */
export interface Announcement {
  id: number;
  text: string;
}

export interface AppState {
  loaded: boolean;
  status?: BrokerStatus;
  pending: PendingCall[];
  /** Servers a client tried to start whose command waits for the person (queue items of their own kind). */
  launches: LaunchRequest[];
  servers?: UiServer[];
  rules: Rule[];
  settings?: Settings;
  changes: ServerChanges[];
  /** Methods this broker does not have yet: their screens say so instead of failing. */
  unsupported: Partial<Record<ApiMethod, true>>;
  /** Bumped on every audit entry; the entries themselves are in logTail. */
  logVersion: number;
  /** The latest audit entries as they were written (oldest first, at most LOG_TAIL): the Activity screen adds them without a query. */
  logTail: AuditEntry[];
  /** Calls whose changes can be undone (listUndoable), once the Activity screen asked; kept fresh from then on. */
  undoable?: UndoableCall[];
  selectedId?: string;
  notices: Notice[];
  /** Calls the agent stopped waiting for before anyone decided (newest last). */
  stopped: StoppedCall[];
  /** Messages of the polite live region, newest last (one per new call; a burst is summed up). */
  announcements: Announcement[];
  /** Set when something outside the queue (a notification click) asks to show a call: the queue focuses its card, then clears it. */
  reveal?: { id: string; seq: number };
  /** Browser UI only: whether this page may show notifications, and whether the person wants them here. */
  browserNotify: { permission: NotifyPermission; on: boolean };
}

export interface AppActions {
  loadAll(): Promise<void>;
  applyEvent(event: BrokerEvent): void;
  select(id: string | undefined): void;
  /** Selects a pending call and asks the queue to focus its card (a notification was clicked). */
  revealCall(id: string): void;
  revealDone(): void;
  setBrowserNotify(patch: Partial<AppState['browserNotify']>): void;
  decide(id: string, decision: DecisionRequest): Promise<DecideResult | { ok: false; error: string }>;
  refreshServers(): Promise<void>;
  refreshLaunches(): Promise<void>;
  refreshChanges(): Promise<void>;
  refreshRules(): Promise<void>;
  refreshSettings(): Promise<void>;
  refreshStatus(): Promise<void>;
  refreshUndoable(): Promise<void>;
  notify(kind: Notice['kind'], text: string): void;
  dismiss(id: number): void;
  dismissStopped(id: string): void;
  /** Runs an API call; failures become a notice. Returns undefined on failure. */
  run<T>(method: ApiMethod, call: () => Promise<T>): Promise<T | undefined>;
}

export type AppStore = StoreApi<AppState & AppActions>;

const NOTICE_MS = 12_000;
const MAX_STOPPED = 5;
/** Audit entries kept for the Activity screen's live updates; a longer gap makes it query again. */
export const LOG_TAIL = 500;
/** A burst of new calls: the first few are announced one by one, the rest in one sentence per window. */
const ANNOUNCE_MS = 1_000;
const ANNOUNCE_EACH = 3;
/** Live-region messages kept in the DOM (only additions are read out). */
const ANNOUNCE_KEEP = 5;

export function createAppStore(api: CountersignApi): AppStore {
  let noticeId = 0;
  let announceId = 0;
  let revealSeq = 0;
  let burst = 0;
  let folded = 0;
  let announceTimer: ReturnType<typeof setTimeout> | undefined;

  return createStore<AppState & AppActions>()((set, get) => {
    // A failed load leaves the previous value; an unsupported method is remembered, not reported.
    async function load<T>(method: ApiMethod, fetcher: () => Promise<T>, apply: (value: T) => void): Promise<void> {
      try {
        apply(await fetcher());
        if (get().unsupported[method]) set((s) => ({ unsupported: { ...s.unsupported, [method]: undefined } }));
      } catch (err) {
        if (isUnsupported(err)) set((s) => ({ unsupported: { ...s.unsupported, [method]: true } }));
        else get().notify('error', `Could not load ${method}: ${errorText(err)}`);
      }
    }

    const refreshServers = coalesce(() =>
      load(
        'listServers',
        () => api.listServers(),
        (v) => set({ servers: v.map(normalizeServer) }),
      ),
    );
    const refreshLaunches = coalesce(() =>
      load(
        'listLaunchRequests',
        () => api.listLaunchRequests(),
        (v) => set({ launches: v }),
      ),
    );
    const refreshChanges = coalesce(() =>
      load(
        'listChanges',
        () => api.listChanges(),
        (v) => set({ changes: v ?? [] }),
      ),
    );
    const refreshRules = coalesce(() =>
      load(
        'listRules',
        () => api.listRules(),
        (v) => set({ rules: v }),
      ),
    );
    const refreshSettings = coalesce(() =>
      load(
        'getSettings',
        () => api.getSettings(),
        (v) => set({ settings: v }),
      ),
    );
    const refreshStatus = coalesce(() =>
      load(
        'getStatus',
        () => api.getStatus(),
        (v) => set({ status: v }),
      ),
    );
    const refreshPending = coalesce(() =>
      load(
        'listPending',
        () => api.listPending(),
        (v) => {
          const pending = sortPending(v.map(normalizeCall));
          const sel = get().selectedId;
          set({ pending, selectedId: sel && pending.some((c) => c.id === sel) ? sel : pending[0]?.id });
        },
      ),
    );
    const refreshUndoable = coalesce(() =>
      load(
        'listUndoable',
        () => api.listUndoable(),
        (v) => set({ undoable: v }),
      ),
    );

    function say(text: string): void {
      set((s) => ({ announcements: [...s.announcements.slice(-(ANNOUNCE_KEEP - 1)), { id: ++announceId, text }] }));
    }

    // One announcement per new call, made when its event arrives (never on a render). Many calls at
    // once: the first few one by one, the rest summed up once a second, not a sentence per call.
    function announce(call: PendingCall): void {
      if (burst < ANNOUNCE_EACH) {
        burst++;
        say(`New call waiting: ${escapeControl(call.tool)} on ${escapeControl(call.server)}.`);
      } else folded++;
      announceTimer ??= setTimeout(() => {
        announceTimer = undefined;
        burst = 0;
        if (folded > 0) say(`${folded} more new ${folded === 1 ? 'call' : 'calls'} waiting.`);
        folded = 0;
      }, ANNOUNCE_MS);
    }

    function removePending(id: string): void {
      const { pending, selectedId } = get();
      if (!pending.some((c) => c.id === id)) return;
      const nextSel = selectedId === id ? neighbourAfterRemoval(pending, id) : selectedId;
      set({ pending: pending.filter((c) => c.id !== id), selectedId: nextSel });
    }

    return {
      loaded: false,
      pending: [],
      launches: [],
      rules: [],
      changes: [],
      unsupported: {},
      logVersion: 0,
      logTail: [],
      notices: [],
      stopped: [],
      announcements: [],
      browserNotify: { permission: 'unsupported', on: true },

      async loadAll() {
        await Promise.all([refreshStatus(), refreshPending(), refreshLaunches(), refreshServers(), refreshRules(), refreshSettings(), refreshChanges()]);
        set({ loaded: true });
      },

      applyEvent(event) {
        switch (event.type) {
          case 'pending-added': {
            const call = normalizeCall(event.call);
            // The same call twice (an event replayed after a reconnect) is not news.
            if (get().pending.some((c) => c.id === call.id)) break;
            const pending = insertPending(get().pending, call);
            set({ pending, selectedId: get().selectedId ?? call.id });
            announce(call);
            break;
          }
          case 'pending-removed': {
            const call = get().pending.find((c) => c.id === event.id);
            if (call && event.why === 'agent-stopped') {
              const entry = { id: call.id, tool: call.tool, server: call.server, waitedMs: Date.now() - call.createdAt };
              set((s) => ({ stopped: [...s.stopped.slice(-(MAX_STOPPED - 1)), entry] }));
              say(`The agent stopped waiting for ${escapeControl(call.tool)} on ${escapeControl(call.server)}.`);
            }
            removePending(event.id);
            break;
          }
          case 'servers-changed':
            void refreshServers();
            // An approval elsewhere (the Servers screen, the CLI) ends a launch's wait.
            if (get().launches.length) void refreshLaunches();
            break;
          case 'launch-requests-changed':
            void refreshLaunches();
            break;
          case 'changes-detected':
            void refreshChanges();
            void refreshServers();
            break;
          case 'rules-changed':
            void refreshRules();
            break;
          case 'settings-changed':
            void refreshSettings();
            break;
          case 'status-changed':
            void refreshStatus();
            break;
          case 'log-appended':
            set((s) => ({ logVersion: s.logVersion + 1, logTail: [...s.logTail.slice(-(LOG_TAIL - 1)), event.entry] }));
            // A call with a snapshot, or an undo: what can be undone changed (only once someone looked).
            if (get().undoable && (event.entry.snapshot || event.entry.kind === 'undo')) void refreshUndoable();
            break;
        }
      },

      select(id) {
        set({ selectedId: id });
      },

      setBrowserNotify(patch) {
        set((s) => ({ browserNotify: { ...s.browserNotify, ...patch } }));
      },

      revealCall(id) {
        if (!get().pending.some((c) => c.id === id)) return;
        set({ selectedId: id, reveal: { id, seq: ++revealSeq } });
      },

      revealDone() {
        set({ reveal: undefined });
      },

      async decide(id, decision) {
        let result: DecideResult;
        try {
          result = await api.decide(id, decision);
        } catch (err) {
          get().notify('error', `The decision was not sent: ${errorText(err)}`);
          return { ok: false, error: errorText(err) };
        }
        if (!result.ok && result.error === 'not-saved') {
          // Nothing was decided: the call stays in the queue.
          get().notify('error', result.message);
          return result;
        }
        removePending(id);
        if (!result.ok) get().notify('info', 'That call was no longer waiting: it was already decided, timed out or cancelled.');
        else if (result.note) get().notify('info', result.note);
        return result;
      },

      refreshServers,
      refreshLaunches,
      refreshChanges,
      refreshRules,
      refreshSettings,
      refreshStatus,
      refreshUndoable,

      notify(kind, text) {
        const id = ++noticeId;
        set((s) => ({ notices: [...s.notices.slice(-2), { id, kind, text }] }));
        setTimeout(() => get().dismiss(id), NOTICE_MS);
      },

      dismissStopped(id) {
        set((s) => ({ stopped: s.stopped.filter((c) => c.id !== id) }));
      },

      dismiss(id) {
        set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
      },

      async run(method, call) {
        try {
          return await call();
        } catch (err) {
          if (isUnsupported(err)) {
            set((s) => ({ unsupported: { ...s.unsupported, [method]: true } }));
            get().notify('error', `This broker does not support ${method} yet. Update Countersign.`);
          } else {
            get().notify('error', errorText(err));
          }
          return undefined;
        }
      },
    };
  });
}
