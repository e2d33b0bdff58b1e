// The words of a notification for a new pending call, the same in the desktop app (electron/main/notifier.ts)
// and the browser UI (renderer/src/notify): plain, visible and short, since names come from servers and clients.
import type { PendingCall } from './api.js';
import { splitHeadline } from './card-order.js';
import { pendingCallWarnings } from './call-warnings.js';
import { escapeControl } from './escape.js';

export function notificationContent(call: PendingCall): { title: string; body: string } {
  // The tool name, not its title: the title is only the server's claim.
  const tool = clip(call.tool, 60);
  const server = clip(call.server, 40);
  const client = call.client.name ? clip(call.client.name, 40) : 'An MCP client';
  // The card's first line, in the card's words: what the call does leads, and an untrusted claim stays
  // beside its cautious default (shared/card-order.ts, shared/call-warnings.ts).
  const first = splitHeadline(pendingCallWarnings(call)).headline[0];
  const line = first ? `${first.title}${first.claim ? `. ${first.claim.text}` : ''}.` : '';
  const body = `${client} wants to run ${tool} on ${server}.` + (line ? ` ${clip(line, 160)}` : '');
  return { title: `Approve ${tool}?`, body };
}

function clip(text: string, max: number): string {
  const visible = escapeControl(text);
  return visible.length > max ? `${visible.slice(0, max - 1)}…` : visible;
}
