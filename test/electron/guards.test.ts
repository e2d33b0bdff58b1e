import { describe, expect, it, vi } from 'vitest';
import {
  denyPermissionCheck,
  denyPermissionRequest,
  isAllowedRequest,
  isAppUrl,
  navigationVerdict,
  windowOpenVerdict,
  withAppHeaders,
} from '../../electron/main/guards.js';
import { isTrustedSender } from '../../electron/main/sender-check.js';
import { APP_CSP, APP_RESPONSE_HEADERS } from '../../electron/main/security-config.js';
import { senderEvent } from './fakes.js';

describe('app URL', () => {
  it.each([
    ['app://countersign/index.html', true],
    ['app://countersign/', true],
    // Chromium lowercases a standard scheme's host; an unnormalised spelling is not ours.
    ['APP://COUNTERSIGN/index.html', false],
    ['app://countersign.evil/index.html', false],
    ['app://evil/index.html', false],
    ['app://user@countersign/index.html', false],
    ['https://countersign/index.html', false],
    ['file:///app/index.html', false],
    ['about:blank', false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(isAppUrl(url)).toBe(expected);
  });
});

describe('navigation and new windows', () => {
  it.each(['app://countersign/other.html', 'https://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,hi'])(
    'will-navigate to %s is denied',
    (url) => {
      expect(navigationVerdict(url).allow).toBe(false);
    },
  );

  it('offers only http(s) addresses for the browser', () => {
    expect(navigationVerdict('https://example.com/docs').external).toBe('https://example.com/docs');
    expect(navigationVerdict('file:///etc/passwd').external).toBeUndefined();
    expect(navigationVerdict('javascript:alert(1)').external).toBeUndefined();
    expect(navigationVerdict('https://user:pw@example.com/').external).toBeUndefined();
  });

  it.each(['https://example.com/', 'app://countersign/index.html', 'about:blank', ''])('window.open(%s) is denied', (url) => {
    expect(windowOpenVerdict(url).action).toBe('deny');
  });

  it('window.open of a web page is offered to the browser, not opened in-app', () => {
    expect(windowOpenVerdict('https://example.com/a?b=1')).toEqual({ action: 'deny', external: 'https://example.com/a?b=1' });
    expect(windowOpenVerdict('smb://server/share')).toEqual({ action: 'deny' });
  });
});

describe('permissions', () => {
  it.each(['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fileSystem', 'unknown'])('request for %s is denied', (permission) => {
    const callback = vi.fn();
    denyPermissionRequest({}, permission, callback);
    expect(callback).toHaveBeenCalledWith(false);
  });

  it('checks are denied', () => {
    expect(denyPermissionCheck()).toBe(false);
  });
});

describe('requests and headers', () => {
  it.each([
    ['app://countersign/assets/index.js', true],
    ['data:image/png;base64,AAAA', true],
    ['blob:app://countersign/1234', true],
    ['https://example.com/x.js', false],
    ['http://127.0.0.1:4000/api/rpc', false],
    ['ws://127.0.0.1:4000/', false],
    ['file:///etc/passwd', false],
    ['garbage', false],
  ])('request to %s allowed: %s', (url, expected) => {
    expect(isAllowedRequest(url)).toBe(expected);
  });

  it('replaces any CSP a response carried with the app one', () => {
    const out = withAppHeaders({ 'content-security-policy': ['default-src *'], 'Content-Type': 'text/html', 'x-other': ['1', '2'] }, APP_RESPONSE_HEADERS);
    expect(out['content-security-policy']).toBeUndefined();
    expect(out['Content-Security-Policy']).toEqual([APP_CSP]);
    expect(out['Content-Type']).toEqual(['text/html']);
    expect(out['x-other']).toEqual(['1', '2']);
    expect(withAppHeaders(undefined, APP_RESPONSE_HEADERS)['X-Content-Type-Options']).toEqual(['nosniff']);
  });
});

describe('IPC sender check', () => {
  it('accepts only the app window, top frame, app URL', () => {
    expect(isTrustedSender(senderEvent({ id: 3 }), 3)).toBe(true);
    expect(isTrustedSender(senderEvent({ id: 3 }), 4)).toBe(false);
    expect(isTrustedSender(senderEvent({ id: 3 }), undefined)).toBe(false);
    expect(isTrustedSender(senderEvent({ id: 3, parent: { url: 'app://countersign/' } }), 3)).toBe(false);
    expect(isTrustedSender(senderEvent({ id: 3, frame: null }), 3)).toBe(false);
    expect(isTrustedSender(senderEvent({ id: 3, url: 'devtools://devtools/bundled/index.html' }), 3)).toBe(false);
  });
});
