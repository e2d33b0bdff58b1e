// What an audit entry says happened, in a word or two: "Untrusted fs", "Agent stopped waiting". The
// Allowed/Denied pair fits tool calls; a change of state names the change.
import type { AuditEntry } from '../../../shared/api';

export interface EntryLabel {
  text: string;
  tone: 'ok' | 'danger' | 'neutral';
}

export function entryLabel(entry: AuditEntry): EntryLabel {
  const deny = entry.decision === 'deny';
  const what = (entry.detail ?? '').toLowerCase();
  switch (entry.kind) {
    case undefined:
    case 'call':
      if (deny && entry.decidedBy === 'client') return { text: 'Agent stopped waiting', tone: 'neutral' };
      if (deny && entry.decidedBy === 'cancelled') return { text: 'Session ended', tone: 'neutral' };
      if (deny && entry.decidedBy === 'timeout') return { text: 'Timed out', tone: 'danger' };
      if (!deny && entry.status === 'input-required') return { text: 'Server asked for input', tone: 'neutral' };
      if (!deny && entry.status !== 'ok' && entry.status !== 'error') return { text: `Allowed · ${entry.status}`, tone: 'ok' };
      return deny ? { text: 'Denied', tone: 'danger' } : { text: 'Allowed', tone: 'ok' };
    case 'trust':
      return deny ? { text: 'Untrusted', tone: 'danger' } : { text: 'Trusted', tone: 'ok' };
    case 'pin':
      if (what.startsWith('quarantined')) return { text: 'Quarantined', tone: 'danger' };
      return deny ? { text: 'Unpinned', tone: 'neutral' } : { text: 'Pinned', tone: 'ok' };
    case 'review':
      return deny ? { text: 'Change rejected', tone: 'danger' } : { text: 'Change accepted', tone: 'ok' };
    case 'launch':
      return deny ? { text: 'Launch refused', tone: 'danger' } : { text: 'Command approved', tone: 'ok' };
    case 'server':
      if (what.startsWith('server removed')) return { text: 'Server removed', tone: 'neutral' };
      return { text: what.startsWith('server imported') ? 'Server imported' : 'Server added', tone: 'ok' };
    case 'rule':
      return deny ? { text: 'Rule removed', tone: 'neutral' } : { text: 'Rule saved', tone: 'ok' };
    case 'settings':
      if (what.startsWith('paused')) return { text: 'Paused', tone: 'danger' };
      if (what === 'resumed') return { text: 'Resumed', tone: 'ok' };
      return { text: 'Settings changed', tone: 'neutral' };
    case 'server-request':
      return { text: 'Server asked the client', tone: 'neutral' };
    case 'access':
      return { text: 'Connection refused', tone: 'danger' };
    case 'client':
      return { text: entry.tool === 'unwrap' ? 'Client unwrapped' : 'Client wrapped', tone: 'neutral' };
    case 'undo':
      if (what.startsWith('undo snapshots pruned')) return { text: 'Snapshots pruned', tone: 'neutral' };
      return { text: 'Undo', tone: 'neutral' };
  }
  return deny ? { text: 'Denied', tone: 'danger' } : { text: 'Allowed', tone: 'ok' };
}
