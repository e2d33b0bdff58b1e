import { describe, expect, it } from 'vitest';
import { clientKey, parseClientId, UNNAMED_CLIENT } from '../../electron/broker/calls/client-key.js';
import { requestClient } from '../../electron/broker/http/client-name.js';

describe('client keys', () => {
  it('keys a named client case-insensitively, an agent by pid and start, and everything else as one', () => {
    expect(clientKey({ client: 'Claude-Desktop' })).toBe(clientKey({ client: 'claude-desktop' }));
    expect(clientKey({ client: 'cursor', agent: { pid: 5, start: '1' } })).toBe('client:cursor');
    expect(clientKey({ agent: { pid: 5, start: '1' } })).toBe('agent:5@1');
    expect(clientKey({})).toBe(UNNAMED_CLIENT);
    // A bad name that slipped through is not a way out of history: it shares the unnamed one.
    expect(clientKey({ client: 'a b' })).toBe(UNNAMED_CLIENT);
  });

  it('accepts short plain ids and says what is allowed otherwise', () => {
    expect(parseClientId(' vscode ')).toEqual({ ok: true, id: 'vscode' });
    expect(parseClientId('claude_code.2')).toEqual({ ok: true, id: 'claude_code.2' });
    for (const bad of ['', '-x', 'a/b', 'x'.repeat(65), 'é'])
      expect(parseClientId(bad)).toMatchObject({ ok: false, error: expect.stringContaining('1 to 64') });
  });
});

describe('HTTP client names', () => {
  const req = (url: string, headers: Record<string, string | string[]> = {}) => ({ url, headers });

  it('takes the name from ?client= or X-Countersign-Client, and none when neither is there', () => {
    expect(requestClient(req('/mcp/fs?client=Cursor'))).toEqual({ ok: true, client: 'cursor' });
    expect(requestClient(req('/mcp/fs', { 'x-countersign-client': 'cursor' }))).toEqual({ ok: true, client: 'cursor' });
    expect(requestClient(req('/mcp/fs?client=cursor', { 'x-countersign-client': 'CURSOR' }))).toEqual({ ok: true, client: 'cursor' });
    expect(requestClient(req('/mcp/fs'))).toEqual({ ok: true });
  });

  it('refuses a bad name, or two different ones', () => {
    expect(requestClient(req('/mcp/fs?client=a%20b'))).toMatchObject({ ok: false });
    expect(requestClient(req('/mcp/fs?client=a', { 'x-countersign-client': 'b' }))).toMatchObject({
      ok: false,
      error: expect.stringContaining('more than one client'),
    });
    expect(requestClient(req('/mcp/fs?client=a&client=b'))).toMatchObject({ ok: false });
  });
});
