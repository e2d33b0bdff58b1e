import { describe, expect, it } from 'vitest';
import { buildCsp, cspProblems } from '../../shared/csp.js';
import { APP_CSP } from '../../electron/main/security-config.js';

const BASE = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
} as const;

describe('CSP builder', () => {
  it('puts default-src first, whatever the order given', () => {
    const csp = buildCsp({
      'script-src': ["'self'"],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
      'default-src': ["'none'"],
    });
    expect(csp.startsWith("default-src 'none'; script-src 'self'")).toBe(true);
  });

  it.each([
    ["'unsafe-inline'", { 'style-src': ["'self'", "'unsafe-inline'"] }],
    ["'unsafe-eval'", { 'script-src': ["'self'", "'unsafe-eval'"] }],
    ["'wasm-unsafe-eval'", { 'script-src': ["'self'", "'wasm-unsafe-eval'"] }],
    ["'unsafe-hashes'", { 'script-src': ["'self'", "'unsafe-hashes'"] }],
    ['a wildcard', { 'img-src': ['*'] }],
    ['any https host', { 'connect-src': ['https:'] }],
    ['scripts from data:', { 'script-src': ["'self'", 'data:'] }],
    ['workers from blob:', { 'worker-src': ['blob:'] }],
  ])('refuses %s', (_name, extra) => {
    expect(() => buildCsp({ ...BASE, ...extra })).toThrow(/weak Content-Security-Policy/);
  });

  it.each([
    ['no default-src', { ...BASE, 'default-src': undefined }],
    ["default-src other than 'none'", { ...BASE, 'default-src': ["'self'"] }],
    ['framing allowed', { ...BASE, 'frame-ancestors': ["'self'"] }],
    ['no base-uri', { ...BASE, 'base-uri': undefined }],
    ['forms allowed', { ...BASE, 'form-action': ["'self'"] }],
  ])('refuses %s', (_name, directives) => {
    const defined = Object.fromEntries(Object.entries(directives).filter(([, v]) => v !== undefined)) as Record<string, string[]>;
    expect(() => buildCsp(defined)).toThrow();
  });

  it('finds problems in a policy string, case-insensitively', () => {
    expect(cspProblems("script-src 'self'; default-src 'none'")[0]).toMatch(/must start with default-src/);
    expect(cspProblems("default-src 'none'; script-src 'UNSAFE-INLINE'").join()).toMatch(/unsafe-inline/i);
    expect(cspProblems("default-src 'none'; script-src 'self'; script-src *").join()).toMatch(/twice/);
  });

  it("the app's policy is strict", () => {
    expect(cspProblems(APP_CSP)).toEqual([]);
    expect(APP_CSP.startsWith("default-src 'none';")).toBe(true);
    expect(APP_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(APP_CSP).toContain("script-src 'self'");
    expect(APP_CSP).toContain("frame-ancestors 'none'");
  });
});
