// The broker's trust fields are arriving in stages: fill what an older broker leaves out with values
// that never make something look safer than it is.
import type { LaunchView, PendingCall, ServerView, ToolView } from '../../../shared/api';

export type UiTool = ToolView;
export type UiServer = Omit<ServerView, 'launch' | 'tools'> & { launch?: LaunchView; tools: UiTool[] };

export function normalizeCall(call: PendingCall): PendingCall {
  return { ...call, reasons: call.reasons ?? [], findings: call.findings ?? [], client: call.client ?? { session: '' } };
}

export function normalizeServer(server: ServerView): UiServer {
  const s = server as Partial<ServerView> & Pick<ServerView, 'name' | 'config' | 'trusted'>;
  return {
    ...s,
    sessions: s.sessions ?? 0,
    status: s.status ?? (s.sessions ? 'running' : 'idle'),
    pendingChanges: s.pendingChanges ?? 0,
    tools: (s.tools ?? []).map((t) => ({ ...t, state: t.state ?? 'unrecorded', findings: t.findings ?? [] })),
  };
}
