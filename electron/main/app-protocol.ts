// app://countersign/… → a file under dist/renderer, with the app's CSP and security headers.
// Why a custom protocol rather than file://: the CSP can travel as a real response header, the page
// gets a proper origin ('self' means only the app's files), and file:// keeps its extra privileges off
// (the GrantFileProtocolExtraPrivileges fuse).
import path from 'node:path';
import { APP_HOST, APP_RESPONSE_HEADERS, APP_SCHEME } from './security-config.js';
import { CONTENT_TYPES as TYPES } from '../../shared/content-types.js';

export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | string;
}

export const NOT_BUILT_PAGE = `<!doctype html><meta charset="utf-8"><title>Countersign</title>
<p>The Countersign UI is not built. Run <code>npm run build</code> in the Countersign folder, then restart the app.</p>`;

/** Which file a request names, or undefined when it is not one of the app's files. */
export function resolveAppFile(rawUrl: string, root: string): string | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return undefined;
  let rel: string;
  try {
    rel = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (rel.includes('\0') || rel.includes('\\')) return undefined;
  rel = rel === '/' ? 'index.html' : rel.replace(/^\/+/, '');
  const base = path.resolve(root);
  const file = path.resolve(base, rel);
  return file.startsWith(base + path.sep) ? file : undefined;
}

export async function serveAppRequest(
  request: { url: string; method: string },
  root: string,
  readFile: (file: string) => Promise<Uint8Array<ArrayBuffer>>,
): Promise<AppResponse> {
  const headers = { ...APP_RESPONSE_HEADERS };
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return { status: 405, headers: { ...headers, Allow: 'GET, HEAD' }, body: '' };
  }
  const file = resolveAppFile(request.url, root);
  if (!file) return { status: 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }, body: 'not found' };
  const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  try {
    return { status: 200, headers: { ...headers, 'Content-Type': type }, body: await readFile(file) };
  } catch {
    if (file === path.join(path.resolve(root), 'index.html')) {
      return { status: 200, headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8' }, body: NOT_BUILT_PAGE };
    }
    return { status: 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }, body: 'not found' };
  }
}
