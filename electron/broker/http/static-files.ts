// Serves the built renderer. Only files under the root, never directory listings, with a strict CSP.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** The browser UI's policy: our own scripts and styles only, API calls to ourselves, no framing. */
export const BROWSER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

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
  const file = normalize(join(root, rel));
  if (!file.startsWith(normalize(root) + sep)) {
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
