// Serves the built renderer. Only files under the root, never directory listings, with a strict CSP.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { CONTENT_TYPES as TYPES } from '../../../shared/content-types.js';
import { UI_CSP, UI_SECURITY_HEADERS } from '../../../shared/ui-security.js';

/** The browser UI's policy is the app's: see shared/ui-security.ts. */
export const BROWSER_CSP = UI_CSP;
const SECURITY_HEADERS = UI_SECURITY_HEADERS;

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Countersign</title>
<p>The Countersign UI is not built. Run <code>npm run build</code> in the Countersign folder, then reload.</p>`;

export async function serveStatic(root: string, urlPath: string, res: ServerResponse): Promise<void> {
  const rel = urlPath === '/' ? 'index.html' : decodeURIComponent(urlPath).replace(/^\/+/, '');
  const base = resolve(root); // no trailing separator, whatever the caller passed
  const file = resolve(base, rel);
  if (!file.startsWith(base + sep)) {
    res.writeHead(404, SECURITY_HEADERS).end('not found');
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' });
    res.end(body);
  } catch {
    if (rel === 'index.html') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' }).end(NOT_BUILT);
      return;
    }
    res.writeHead(404, SECURITY_HEADERS).end('not found');
  }
}
