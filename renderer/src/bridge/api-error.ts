// Errors from any bridge, and the one test the UI needs: "this broker does not have that method yet".

export class ApiError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

// The HTTP bridge says `unknown API method "x"`; a broker object missing the method fails with a
// TypeError inside the bridge (422 "... reading 'apply'" / "is not a function"); IPC may say "No handler".
const UNSUPPORTED = /unknown API method|is not a function|reading 'apply'|No handler registered|not implemented/i;

export function isUnsupported(err: unknown): boolean {
  return err instanceof Error && UNSUPPORTED.test(err.message);
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
