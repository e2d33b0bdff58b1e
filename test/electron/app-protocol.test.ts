import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_BUILT_PAGE, resolveAppFile, serveAppRequest } from '../../electron/main/app-protocol.js';
import { APP_CSP } from '../../electron/main/security-config.js';

function rendererDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-renderer-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="./assets/app.js"></script>');
  writeFileSync(path.join(dir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(path.join(dir, '..', `${path.basename(dir)}-secret.txt`), 'secret');
  return dir;
}

const read = async (file: string) => new Uint8Array(await readFile(file));
const text = (body: Uint8Array | string) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));

describe('app:// protocol', () => {
  it('serves index.html for / with the CSP header and security headers', async () => {
    const root = rendererDir();
    const res = await serveAppRequest({ url: 'app://countersign/', method: 'GET' }, root, read);
    expect(res.status).toBe(200);
    expect(res.headers['Content-Security-Policy']).toBe(APP_CSP);
    expect(res.headers['X-Content-Type-Options']).toBe('nosniff');
    expect(res.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(text(res.body)).toContain('assets/app.js');
  });

  it('serves assets with their type', async () => {
    const root = rendererDir();
    const res = await serveAppRequest({ url: 'app://countersign/assets/app.js?v=1#x', method: 'GET' }, root, read);
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
  });

  it.each([
    'app://countersign/../secret.txt',
    'app://countersign/%2e%2e/secret.txt',
    'app://countersign/assets/%2e%2e/%2e%2e/x',
    'app://countersign/..%5c..%5cx',
    'app://countersign/a%00b',
    'app://countersign/%E0%A4%A',
    'app://other/index.html',
    'https://countersign/index.html',
  ])('refuses %s', async (url) => {
    const root = rendererDir();
    const res = await serveAppRequest({ url, method: 'GET' }, root, read);
    expect(res.status).toBe(404);
    expect(res.headers['Content-Security-Policy']).toBe(APP_CSP);
  });

  it('never resolves outside the root', () => {
    const root = rendererDir();
    expect(resolveAppFile(`app://countersign/..%2F${path.basename(root)}-secret.txt`, root)).toBeUndefined();
    expect(resolveAppFile('app://countersign/index.html', root)).toBe(path.join(root, 'index.html'));
  });

  it('answers only GET and HEAD', async () => {
    const res = await serveAppRequest({ url: 'app://countersign/', method: 'POST' }, rendererDir(), read);
    expect(res.status).toBe(405);
  });

  it('says how to build when the renderer is missing', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'cs-empty-'));
    const res = await serveAppRequest({ url: 'app://countersign/index.html', method: 'GET' }, empty, read);
    expect(res.status).toBe(200);
    expect(res.body).toBe(NOT_BUILT_PAGE);
    expect(res.headers['Content-Security-Policy']).toBe(APP_CSP);
    const missing = await serveAppRequest({ url: 'app://countersign/assets/x.js', method: 'GET' }, empty, read);
    expect(missing.status).toBe(404);
  });
});
