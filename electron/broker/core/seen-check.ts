// Approvals are bound to what the person saw: each consent, trust, pin or review names the hash of the
// command line, listing or definition that was on screen, and is refused when that moved since.
import type { ServerConfig } from '../../../shared/api.js';
import { escapeControl } from '../../../shared/escape.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import { listingHash } from '../trust/definition-tracker.js';
import { launchHash } from '../trust/launch-consent.js';

/** Nothing was approved: what the person decided on is no longer what would take effect. */
export class ChangedSinceShownError extends Error {
  override name = 'ChangedSinceShownError';
}

const q = (text: string): string => `'${escapeControl(text)}'`;

export function assertLaunchSeen(name: string, config: ServerConfig, seen: string): void {
  if (launchHash(config) === seen) return;
  throw new ChangedSinceShownError(
    `${q(name)}'s ${'url' in config ? 'address' : 'command line'} changed after it was shown to you, so nothing was approved. ` +
      'Look at what it runs now and decide again.',
  );
}

export function assertListingSeen(name: string, tools: ToolDefinition[] | undefined, seen: string | undefined): void {
  const now = tools?.length ? listingHash(tools) : undefined;
  if (now === seen) return;
  const what = !seen ? 'listed its tools after you looked' : !now ? 'has no tool listing now' : 'listed different tools after they were shown to you';
  throw new ChangedSinceShownError(`${q(name)} ${what}, so nothing was changed. Look at its tools again and decide again.`);
}

export function assertChangeSeen(server: string, tool: string, now: string | undefined, seen: string | undefined): void {
  if (now === undefined) throw new Error(`No change to ${q(tool)} on ${q(server)} is waiting for review.`);
  if (seen === undefined) {
    throw new Error(`Accepting the change to ${q(tool)} needs the hash of the change you reviewed (each change's \`hash\` in listChanges).`);
  }
  if (seen !== now) {
    throw new ChangedSinceShownError(
      `The change to ${q(tool)} on ${q(server)} moved after it was shown to you (the server changed it again), so nothing was accepted. Review it again.`,
    );
  }
}
