// @vitest-environment happy-dom
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, makeClient } from '../test/fake-api';
import { renderApp } from '../test/render-app';

const DIFF = `--- /home/me/.config/Claude/claude_desktop_config.json\tbefore
+++ /home/me/.config/Claude/claude_desktop_config.json\tafter
@@ -1,4 +1,4 @@
 {
-  "command": "npx",
+  "command": "/usr/bin/node",
 }
`;

function withPreview(api: FakeApi): FakeApi {
  api.wrapPreview = {
    client: 'claude-desktop',
    changes: 1,
    planHash: 'b'.repeat(64),
    files: [
      {
        path: '/home/me/.config/Claude/claude_desktop_config.json',
        scope: 'user',
        diff: DIFF,
        entries: [
          { entry: 'fs', action: 'add', server: 'fs' },
          { entry: 'notes', action: 'refuse', reason: '${KEY} is filled in by the client' },
        ],
      },
    ],
  };
  return api;
}

async function openClients(api: FakeApi) {
  await renderApp(api, 'clients');
  return screen.findByRole('region', { name: 'Claude Desktop' });
}

describe('Clients view', () => {
  it('shows each client, its file and which servers go through Countersign', async () => {
    const api = new FakeApi();
    api.clients.push(makeClient({ id: 'cursor', name: 'Cursor', found: false, files: [], looked: ['/home/me/.cursor/mcp.json'] }));
    const card = await openClients(api);
    expect(within(card).getByText('/home/me/.config/Claude/claude_desktop_config.json')).toBeTruthy();
    const rows = within(card).getAllByRole('listitem');
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringMatching(/^fsNot protectednpx -y @modelcontextprotocol\/server-filesystem \/home\/me$/),
      expect.stringMatching(/^notesNot protected, cannot wrap.*wrap leaves it alone/),
    ]);
    expect(screen.getByText('1 server starts without Countersign.')).toBeTruthy();
    expect(screen.getByText('Not found here: Cursor')).toBeTruthy();
    expect(within(card).queryByRole('button', { name: /^Unwrap/ })).toBeNull();
  });

  it('Wrap shows a read-only file with its fix, and says when the lines end with CRLF', async () => {
    const api = withPreview(new FakeApi());
    api.wrapPreview!.files[0] = { ...api.wrapPreview!.files[0]!, lineEnds: 'crlf' };
    api.wrapPreview!.files.push({
      path: '/home/me/.cursor/mcp.json',
      scope: 'user',
      diff: '',
      entries: [{ entry: 'x', action: 'refuse', reason: 'its file is read-only (see above)' }],
      readOnly:
        "Countersign will not replace this file: it is read-only (mode 444). To wrap it, make it writable (chmod u+w '/home/me/.cursor/mcp.json'), then run wrap again.",
    });
    const card = await openClients(api);
    await userEvent.setup().click(within(card).getByRole('button', { name: 'Wrap Claude Desktop' }));
    const review = await within(card).findByRole('region', { name: /^Review: protect Claude Desktop/ });
    expect(within(review).getByText(/it is read-only \(mode 444\)\. To wrap it, make it writable/)).toBeTruthy();
    expect(within(review).getByText('Its lines end with CRLF; the file keeps them.')).toBeTruthy();
  });

  it('Wrap shows the plan and the diff first, and writes only on confirm, bound to the plan it showed', async () => {
    const api = withPreview(new FakeApi());
    const card = await openClients(api);
    const user = userEvent.setup();
    await user.click(within(card).getByRole('button', { name: 'Wrap Claude Desktop' }));
    const review = await within(card).findByRole('region', { name: /^Review: protect Claude Desktop/ });
    expect(api.callsOf('previewWrap')).toEqual([['claude-desktop', {}]]);
    expect(api.callsOf('wrapClient')).toEqual([]);
    expect(within(review).getByText(/added to Countersign as “fs”, untrusted/)).toBeTruthy();
    expect(within(review).getByText(/\$\{KEY\} is filled in by the client/)).toBeTruthy();
    const diff = within(review).getByRole('region', { name: /^Changes to / });
    expect([...diff.querySelectorAll('[data-kind]')].map((l) => l.getAttribute('data-kind'))).toEqual(['head', 'head', 'hunk', 'ctx', 'del', 'add', 'ctx']);
    expect(diff.textContent).toContain('−removed:   "command": "npx",');
    expect(diff.textContent).toContain('+added:   "command": "/usr/bin/node",');

    await user.click(within(review).getByRole('button', { name: 'Cancel' }));
    expect(within(card).queryByRole('region', { name: /^Review/ })).toBeNull();
    expect(api.callsOf('wrapClient')).toEqual([]);
    // Escape closes the review too, and focus goes back to the client's button.
    await user.click(within(card).getByRole('button', { name: 'Wrap Claude Desktop' }));
    await within(card).findByRole('region', { name: /^Review: protect Claude Desktop/ });
    await user.keyboard('{Escape}');
    expect(within(card).queryByRole('region', { name: /^Review/ })).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(within(card).getByRole('button', { name: 'Wrap Claude Desktop' })));
    expect(api.callsOf('wrapClient')).toEqual([]);

    await user.click(within(card).getByRole('button', { name: 'Wrap Claude Desktop' }));
    await user.click(await within(card).findByRole('button', { name: 'Confirm and write' }));
    expect(api.callsOf('wrapClient')).toEqual([['claude-desktop', {}, 'b'.repeat(64)]]);
    await waitFor(() => expect(within(card).getAllByRole('listitem')[0]!.textContent).toContain('Through Countersign'));
    expect(document.body.textContent).toContain('New servers (fs) wait for you to approve their commands in Servers');
    expect(document.body.textContent).toContain('To undo, choose Unwrap Claude Desktop (or run countersign unwrap claude-desktop).');
    expect(within(card).queryByRole('button', { name: /^Wrap/ })).toBeNull();
    expect(within(card).getByRole('button', { name: 'Unwrap Claude Desktop' })).toBeTruthy();
  });

  it('Unwrap shows what comes back, and restores only on confirm', async () => {
    const api = new FakeApi();
    api.clients = [makeClient({ canUnwrap: true })];
    api.unwrapPreview = {
      client: 'claude-desktop',
      planHash: 'c'.repeat(64),
      files: [
        {
          path: '/home/me/.config/Claude/claude_desktop_config.json',
          how: 'entries',
          diff: DIFF,
          entries: [
            { entry: 'fs', outcome: 'restored' },
            { entry: 'gh', outcome: 'kept', why: 'it was changed since the wrap' },
          ],
        },
      ],
    };
    const card = await openClients(api);
    const user = userEvent.setup();
    await user.click(within(card).getByRole('button', { name: 'Unwrap Claude Desktop' }));
    const review = await within(card).findByRole('region', { name: /^Review: put Claude Desktop/ });
    expect(review.textContent).toContain('only Countersign’s entries are put back, your edits stay');
    expect(review.textContent).toContain('gh: kept as it is (it was changed since the wrap)');
    expect(api.callsOf('unwrapClient')).toEqual([]);
    await user.click(within(review).getByRole('button', { name: 'Confirm and restore' }));
    expect(api.callsOf('unwrapClient')).toEqual([['claude-desktop', {}, 'c'.repeat(64)]]);
    await waitFor(() => expect(within(card).queryByRole('button', { name: /^Unwrap/ })).toBeNull());
  });

  it('with nothing to change, there is nothing to confirm', async () => {
    const api = new FakeApi();
    const card = await openClients(api);
    const user = userEvent.setup();
    await user.click(within(card).getByRole('button', { name: 'Wrap Claude Desktop' }));
    const review = await within(card).findByRole('region', { name: /^Review/ });
    expect(within(review).getByText('Nothing to change.')).toBeTruthy();
    expect(within(review).queryByRole('button', { name: /^Confirm/ })).toBeNull();
  });

  it('looks in a project folder when asked', async () => {
    const api = new FakeApi();
    await openClients(api);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Also look in a project folder'), '/home/me/src/app');
    await user.click(screen.getByRole('button', { name: 'Look' }));
    await waitFor(() => expect(api.callsOf('listClients').at(-1)).toEqual([{ project: '/home/me/src/app' }]));
  });

  it('says so when the broker cannot list clients', async () => {
    const api = new FakeApi();
    api.unsupported.add('listClients');
    await renderApp(api, 'clients');
    expect(await screen.findByText('This broker cannot list clients yet. Update Countersign.')).toBeTruthy();
  });
});

describe('empty queue', () => {
  it('points to the Clients view, not to a command a registry resolves', async () => {
    const api = new FakeApi();
    await renderApp(api);
    const pointer = await screen.findByRole('region', { name: 'Protect the clients you already use' });
    await waitFor(() => expect(pointer.textContent).toContain('Found Claude Desktop: 1 server starts without Countersign.'));
    expect(document.body.textContent).not.toMatch(/npx countersign (servers|wrap)/);
    await userEvent.setup().click(within(pointer).getByRole('button', { name: 'Open Clients' }));
    expect(await screen.findByRole('heading', { name: 'Clients', level: 1 })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Clients' }).getAttribute('aria-current')).toBe('page');
  });
});

describe('Checkup in the Clients view', () => {
  it("shows doctor's findings, problems first with their fixes, what is fine folded away, and checks again on request", async () => {
    const api = new FakeApi();
    api.doctor.findings = [
      {
        area: 'clients',
        code: 'client.node-missing',
        level: 'problem',
        summary: "Cursor's 'memory' runs /home/me/.nvm/versions/node/v22.9.0/bin/node, which no longer exists.",
        fix: 'countersign unwrap cursor && countersign wrap cursor',
      },
      { area: 'sandbox', code: 'sandbox.none', level: 'warning', summary: 'No sandbox works here: bubblewrap is not installed.', fix: 'install bubblewrap' },
      { area: 'ports', code: 'ports.none', level: 'ok', summary: 'No broker listens here.' },
    ];
    await openClients(api);
    const checkup = await screen.findByRole('region', { name: 'Checkup' });
    await waitFor(() => expect(within(checkup).getByText('1 problem, 1 warning.')).toBeTruthy());
    const items = within(within(checkup).getByRole('list', { name: 'Findings' })).getAllByRole('listitem');
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringMatching(/^Problem: Cursor's 'memory' runs .*no longer exists\.Fix: countersign unwrap cursor && countersign wrap cursor$/),
      expect.stringMatching(/^Warning: No sandbox works here.*Fix: install bubblewrap$/),
    ]);
    expect(within(checkup).getByText('What is fine (1)')).toBeTruthy();
    api.doctor.findings = [];
    await userEvent.click(within(checkup).getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(within(checkup).getByText('No problems found.')).toBeTruthy());
    expect(api.callsOf('runDoctor')).toHaveLength(2);
  });

  it('shows nothing with an older broker that has no checkup', async () => {
    const api = new FakeApi();
    api.unsupported.add('runDoctor');
    await openClients(api);
    await waitFor(() => expect(api.callsOf('runDoctor')).toHaveLength(1));
    expect(screen.queryByRole('region', { name: 'Checkup' })).toBeNull();
  });
});
