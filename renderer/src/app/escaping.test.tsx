// @vitest-environment happy-dom
// Server text is data, never markup: hostile names, titles, descriptions and arguments render as text.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, makeCall, makeServer, CAUTIOUS_HINTS } from '../test/fake-api';
import { renderApp } from '../test/render-app';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

describe('hostile server text', () => {
  it('shows markup in tool names, titles and arguments as text, and makes terminal escapes visible', async () => {
    const api = new FakeApi();
    api.pending = [makeCall({ tool: `evil${HOSTILE}`, title: `\u001b[31mSafe\u001b[0m ${HOSTILE}`, server: 'fs', arguments: { html: HOSTILE } })];
    await renderApp(api);
    expect(document.querySelector('img, script:not([src])')).toBeNull();
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
    const detail = screen.getByRole('region', { name: 'Call detail' });
    expect(within(detail).getByRole('heading', { level: 2 }).textContent).toBe(`evil${HOSTILE}`);
    expect(detail.textContent).toContain('\\x1b[31mSafe\\x1b[0m');
    expect(detail.textContent).not.toContain('\u001b');
  });

  it('shows hostile tool descriptions and annotation values on the Servers screen as text', async () => {
    const api = new FakeApi();
    api.servers = [
      makeServer({
        name: 'evil',
        tools: [
          {
            definition: { name: 'tool', description: `Reads notes.\u202Eevil\u202C ${HOSTILE}`, annotations: { readOnlyHint: 'yes' as never } },
            hints: CAUTIOUS_HINTS,
            state: 'approved',
            findings: [],
          },
        ],
      }),
    ];
    await renderApp(api, 'servers');
    const user = userEvent.setup();
    await user.click(screen.getByText('tool', { selector: 'code *, code' }));
    expect(document.querySelector('img, script:not([src])')).toBeNull();
    const desc = document.querySelector('.tool-desc')!;
    expect(desc.textContent).toBe(`Reads notes.\\u202eevil\\u202c ${HOSTILE}`);
    const row = screen.getByRole('row', { name: /readOnlyHint/ });
    expect(row.textContent).toContain('not a boolean: "yes"');
    expect(row.textContent).toContain('→ treated as false');
  });
});
