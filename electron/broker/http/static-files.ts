// Serves the built renderer. Only files under the root, never directory listings, with a strict CSP.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { CONTENT_TYPES as TYPES } from '../../../shared/content-types.js';
import { buildCsp } from '../../../shared/csp.js';


/** The browser UI's policy: our own scripts and styles only, API calls to ourselves, no framing. */
export const BROWSER_CSP = buildCsp({
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'worker-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
});

const SECURITY_HEADERS = {
  'Content-Security-Policy': BROWSER_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

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
