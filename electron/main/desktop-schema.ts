// Argument schemas for the DesktopApi methods, checked in main like the CountersignApi ones.
import { z } from 'zod';
import { DESKTOP_METHODS, type DesktopMethod } from '../ipc/desktop-api.js';

/** The desktop app's own preferences (desktop.json), and the patch the window may send: one shape. */
export const desktopPrefsSchema = z.object({ notifications: z.boolean().optional() }).strict();

export const desktopArgs = {
  openExternal: z.tuple([z.string().min(1).max(2048)]),
  getDesktopSettings: z.tuple([]),
  updateDesktopSettings: z.tuple([desktopPrefsSchema]),
  installCommandLineTool: z.tuple([]),
} satisfies Record<DesktopMethod, z.ZodTypeAny>;

export function isDesktopMethod(name: unknown): name is DesktopMethod {
  return typeof name === 'string' && (DESKTOP_METHODS as readonly string[]).includes(name);
}

export function parseDesktopArgs(method: DesktopMethod, args: unknown): { ok: true; args: unknown[] } | { ok: false; error: string } {
  const parsed = desktopArgs[method].safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data };
  const first = parsed.error.issues[0];
  return { ok: false, error: `invalid arguments for ${method}: ${first ? `${first.path.join('.') || 'arguments'}: ${first.message}` : 'rejected'}` };
}
