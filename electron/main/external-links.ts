// Opening a web address in the person's browser: only http(s), only after they confirm, one at a time.

const MAX_URL_LENGTH = 2048;

/** The URL if it may be handed to the OS browser: http or https, no embedded credentials, not absurdly long. */
export function parseExternalUrl(raw: unknown): URL | undefined {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // user:pass@ hides the real host from a quick read of the confirm dialog.
  if (url.username !== '' || url.password !== '') return undefined;
  if (url.hostname === '') return undefined;
  return url;
}

export interface ExternalOpenDeps {
  /** Shows the exact address and resolves true only when the person chose to open it. */
  confirm(url: string): Promise<boolean>;
  open(url: string): Promise<void>;
}

export type OpenOutcome = 'opened' | 'declined' | 'refused' | 'busy';

/** Builds the one function that opens links; a second request while a dialog is up is refused, so a page cannot stack dialogs. */
export function createExternalOpener(deps: ExternalOpenDeps): (raw: unknown) => Promise<OpenOutcome> {
  let asking = false;
  return async (raw) => {
    const url = parseExternalUrl(raw);
    if (!url) return 'refused';
    if (asking) return 'busy';
    asking = true;
    try {
      if (!(await deps.confirm(url.href))) return 'declined';
    } finally {
      asking = false;
    }
    await deps.open(url.href);
    return 'opened';
  };
}

/** The confirm dialog's text. The address is shown whole, as the URL parser normalised it (punycode host). */
export function confirmDialogOptions(href: string): {
  type: 'question';
  buttons: string[];
  defaultId: number;
  cancelId: number;
  title: string;
  message: string;
  detail: string;
  noLink: true;
} {
  return {
    type: 'question',
    buttons: ['Cancel', 'Open in browser'],
    defaultId: 0,
    cancelId: 0,
    title: 'Open link',
    message: 'Open this address in your browser?',
    detail: href,
    noLink: true,
  };
}
