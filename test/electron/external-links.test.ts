import { describe, expect, it, vi } from 'vitest';
import { confirmDialogOptions, createExternalOpener, parseExternalUrl } from '../../electron/main/external-links.js';

describe('external URL check', () => {
  it.each([
    ['https://example.com/docs', 'https://example.com/docs'],
    ['http://example.com', 'http://example.com/'],
    ['HTTPS://EXAMPLE.com/A', 'https://example.com/A'],
    ['https://exämple.com/', 'https://xn--exmple-cua.com/'],
  ])('%s is allowed as %s', (raw, href) => {
    expect(parseExternalUrl(raw)?.href).toBe(href);
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,x',
    'mailto:a@b.c',
    'smb://host/share',
    'ms-settings:',
    'app://countersign/index.html',
    'https://user:pass@example.com/',
    'https://user@example.com/',
    '/relative',
    '',
    'https://',
    `https://example.com/${'a'.repeat(3000)}`,
  ])('%s is refused', (raw) => {
    expect(parseExternalUrl(raw)).toBeUndefined();
  });

  it('refuses non-strings', () => {
    expect(parseExternalUrl(42)).toBeUndefined();
    expect(parseExternalUrl({ href: 'https://example.com' })).toBeUndefined();
  });
});

describe('opening with consent', () => {
  it('opens only after the person confirms, showing the exact address', async () => {
    const confirm = vi.fn(async () => true);
    const open = vi.fn(async () => {});
    const openExternal = createExternalOpener({ confirm, open });
    await expect(openExternal('https://exämple.com/a')).resolves.toBe('opened');
    expect(confirm).toHaveBeenCalledWith('https://xn--exmple-cua.com/a');
    expect(open).toHaveBeenCalledWith('https://xn--exmple-cua.com/a');
  });

  it('does nothing when the person cancels', async () => {
    const open = vi.fn(async () => {});
    const openExternal = createExternalOpener({ confirm: async () => false, open });
    await expect(openExternal('https://example.com/')).resolves.toBe('declined');
    expect(open).not.toHaveBeenCalled();
  });

  it('never asks about a refused URL', async () => {
    const confirm = vi.fn(async () => true);
    const open = vi.fn(async () => {});
    const openExternal = createExternalOpener({ confirm, open });
    await expect(openExternal('file:///etc/passwd')).resolves.toBe('refused');
    expect(confirm).not.toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
  });

  it('refuses a second request while a dialog is up', async () => {
    let answer!: (yes: boolean) => void;
    const confirm = vi.fn(() => new Promise<boolean>((r) => (answer = r)));
    const open = vi.fn(async () => {});
    const openExternal = createExternalOpener({ confirm, open });
    const first = openExternal('https://example.com/1');
    await expect(openExternal('https://example.com/2')).resolves.toBe('busy');
    answer(true);
    await expect(first).resolves.toBe('opened');
    expect(open.mock.calls).toEqual([['https://example.com/1']]);
    // Free again once the dialog is gone.
    const third = openExternal('https://example.com/3');
    answer(false);
    await expect(third).resolves.toBe('declined');
  });

  it('the dialog defaults to Cancel', () => {
    const options = confirmDialogOptions('https://example.com/');
    expect(options.buttons[options.defaultId]).toBe('Cancel');
    expect(options.cancelId).toBe(options.defaultId);
    expect(options.detail).toBe('https://example.com/');
  });
});
