// @vitest-environment happy-dom
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ServerLimitsView } from '../../../shared/api';
import type { LimitsEnforcement, LimitsProfile } from '../../../shared/limits';
import { FakeApi, makeServer } from '../test/fake-api';
import { renderApp } from '../test/render-app';

const server = (name: string) => screen.getByRole('region', { name: `Server ${name}` });
const ENFORCED: LimitsEnforcement = { sandbox: 'bubblewrap', network: 'enforced', filesystem: 'enforced', env: 'enforced', processes: 'enforced' };
const readOnly: LimitsProfile = { network: 'none', filesystem: { read: ['/home/me/project'], write: [] }, passEnv: [] };

function limited(profile: LimitsProfile, view: Partial<ServerLimitsView> = {}) {
  return makeServer({
    config: { command: 'node', args: ['server.js'], limits: profile },
    launch: { commandLine: ['node', 'server.js'], envNames: [], headerNames: [], limits: profile, hash: 'a'.repeat(64), approved: true, approvedBy: 'person' },
    limits: { profile, enforcement: ENFORCED, badge: 'no network · read-only ~/project (enforced)', ...view },
  });
}

describe('server limits', () => {
  it('shows the badge on the card and the detail, with what enforces each limit', async () => {
    const api = new FakeApi();
    api.servers = [limited(readOnly)];
    await renderApp(api, 'servers');
    expect(screen.getAllByText('no network · read-only ~/project (enforced)').length).toBeGreaterThanOrEqual(2);
    const detail = server('fs');
    expect(within(detail).getByRole('list', { name: 'How each limit stands here' }).textContent).toContain('Network: enforced');
    expect(within(detail).getByText(/Enforced by bubblewrap/)).toBeTruthy();
    expect(detail.textContent).toContain('Limits: no network · read-only /home/me/project');
  });

  it("says plainly when nothing enforces them: it does not start, why, the fix, and the person's way to run it anyway", async () => {
    const api = new FakeApi();
    const none: LimitsEnforcement = {
      sandbox: 'none',
      reason: 'bubblewrap is not installed',
      fix: 'install bubblewrap',
      network: 'not enforced',
      filesystem: 'not enforced',
      env: 'enforced',
      processes: 'not enforced',
    };
    api.servers = [
      limited(readOnly, {
        enforcement: none,
        badge: 'no network · read-only ~/project (not enforced: network, filesystem: bubblewrap is not installed)',
        unenforced: { reason: 'bubblewrap is not installed', fix: 'install bubblewrap', runsWithoutLimits: false },
      }),
    ];
    await renderApp(api, 'servers');
    const user = userEvent.setup();
    const detail = server('fs');
    const alert = within(detail).getByRole('alert');
    expect(alert.textContent).toContain('Does not start on this machine: its limits cannot be enforced (bubblewrap is not installed).');
    expect(alert.textContent).toContain('Fix: install bubblewrap');
    expect(within(detail).getByRole('list', { name: 'How each limit stands here' }).textContent).toContain('Network: NOT enforced');
    expect(detail.querySelector('.badge-ok')?.textContent ?? '').not.toMatch(/enforced/);
    expect(detail.querySelector('.badge-warning')?.textContent).toContain('not enforced');
    // Bound to the launch on screen.
    await user.click(within(alert).getByRole('button', { name: 'Run without its limits' }));
    await waitFor(() => expect(api.callsOf('setRunWithoutLimits')).toEqual([['fs', true, 'a'.repeat(64)]]));
    await waitFor(() => expect(within(server('fs')).getByRole('alert').textContent).toContain('Runs WITHOUT its limits here, as you allowed'));
    await user.click(within(server('fs')).getByRole('button', { name: 'Require its limits again' }));
    await waitFor(() => expect(api.callsOf('setRunWithoutLimits')[1]).toEqual(['fs', false]));
  });

  it("lists Countersign's own files the sandbox hides from it, and what this sandbox does not cover", async () => {
    const api = new FakeApi();
    api.servers = [
      limited(readOnly, {
        enforcement: { ...ENFORCED, caveats: ['this bubblewrap is older than 0.8'], fix: 'upgrade bubblewrap to 0.8 or later' },
        hidden: [
          { path: '/home/me/.config/Countersign', what: "Countersign's data folder" },
          { path: '/home/me/.cursor/mcp.json', what: "Cursor's MCP config" },
        ],
      }),
    ];
    await renderApp(api, 'servers');
    const detail = server('fs');
    const hidden = within(detail).getByRole('list', { name: 'Hidden from this server' });
    expect(
      within(hidden)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(["/home/me/.config/Countersign (Countersign's data folder)", "/home/me/.cursor/mcp.json (Cursor's MCP config)"]);
    expect(detail.textContent).toContain('Not covered here: this bubblewrap is older than 0.8 (fix: upgrade bubblewrap to 0.8 or later)');
  });

  it('tightens at once without the launch hash, and loosens bound to the launch on screen', async () => {
    const api = new FakeApi();
    api.servers = [limited({ ...readOnly, filesystem: { read: [], write: ['/home/me/project'] } })];
    await renderApp(api, 'servers');
    const user = userEvent.setup();
    const detail = server('fs');
    await user.click(within(detail).getByRole('button', { name: 'Make all read-only' }));
    expect(within(detail).getByText(/Tighter limits apply at once: its running sessions end/)).toBeTruthy();
    await user.click(within(detail).getByRole('button', { name: 'Apply limits' }));
    await waitFor(() => expect(api.callsOf('setLimits')).toEqual([['fs', readOnly]]));

    await user.click(within(detail).getByRole('checkbox', { name: 'No network' }));
    await user.click(within(detail).getByRole('button', { name: 'Loosen limits (asks your consent)' }));
    await waitFor(() => expect(api.callsOf('setLimits')[1]).toEqual(['fs', { ...readOnly, network: 'unrestricted' }, 'a'.repeat(64)]));
  });

  it('offers the suggested limits without applying them', async () => {
    const api = new FakeApi();
    const open: LimitsProfile = { network: 'unrestricted', filesystem: 'host', passEnv: [] };
    api.servers = [
      limited(open, {
        badge: 'no limits',
        enforcement: { ...ENFORCED, network: 'no limit', filesystem: 'no limit' },
        offer: {
          limits: { network: 'none', filesystem: { read: [], write: ['/home/me/project'] }, passEnv: [] },
          why: ['a filesystem server: the directories in its arguments become its only roots'],
        },
      }),
    ];
    await renderApp(api, 'servers');
    const detail = server('fs');
    expect(within(detail).getByText(/Suggested \(not applied\)/).textContent).toContain('no network · writes /home/me/project');
    expect(api.callsOf('setLimits')).toEqual([]);
    const user = userEvent.setup();
    await user.click(within(detail).getByRole('button', { name: 'Use the suggestion' }));
    expect(within(detail).getByRole('list', { name: 'Folders it may see' }).textContent).toContain('/home/me/project');
    await user.click(within(detail).getByRole('button', { name: 'Apply limits' }));
    await waitFor(() =>
      expect(api.callsOf('setLimits')).toEqual([['fs', { network: 'none', filesystem: { read: [], write: ['/home/me/project'] }, passEnv: [] }]]),
    );
  });

  it('shows the limits in force on a logged call, and the enforced reasons in words', async () => {
    const api = new FakeApi();
    api.log = [
      {
        seq: 1,
        time: '2026-01-01T10:00:00Z',
        server: 'fs',
        tool: 'read_text_file',
        arguments: { path: '/a' },
        decision: 'allow',
        decidedBy: 'policy',
        reasons: ['read-only-enforced', 'network-off-enforced'],
        durationMs: 3,
        status: 'ok',
        limits: 'no network · read-only ~/project (enforced)',
        prev: '0',
        hash: 'abcdef0123456789',
      },
    ];
    await renderApp(api, 'activity');
    const list = await screen.findByRole('list', { name: 'Audit log' });
    const row = within(list).getAllByRole('listitem')[0]!;
    await userEvent.setup().click(within(row).getByRole('button'));
    expect(row.textContent).toContain('Limits in forceno network · read-only ~/project (enforced)');
    expect(row.textContent).toContain('read-only: enforced (trusted, and its files are mounted read-only)');
    expect(row.textContent).toContain('No network (enforced): nothing can leave through this call');
  });

  it('adds a server with limits from the form, and refuses a relative folder', async () => {
    const api = new FakeApi();
    await renderApp(api, 'servers');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    const form = screen.getByRole('form', { name: 'Add a server' });
    await user.type(within(form).getByLabelText('Name'), 'files');
    await user.type(within(form).getByLabelText('Command'), 'node');
    await user.click(within(form).getByRole('checkbox', { name: 'No network' }));
    await user.type(within(form).getByLabelText('Read-only folders, one per line'), 'project');
    await user.click(within(form).getByRole('button', { name: 'Add server' }));
    expect(within(form).getByRole('alert').textContent).toContain('“project” is not an absolute folder');
    expect(api.callsOf('addServer')).toEqual([]);
    await user.clear(within(form).getByLabelText('Read-only folders, one per line'));
    await user.type(within(form).getByLabelText('Read-only folders, one per line'), '/home/me/project');
    await user.type(within(form).getByLabelText(/^Writable folders/), '/home/me/out');
    await user.click(within(form).getByRole('button', { name: 'Add server' }));
    expect(api.callsOf('addServer')).toEqual([
      ['files', { command: 'node', limits: { network: 'none', filesystem: { read: ['/home/me/project'], write: ['/home/me/out'] }, passEnv: [] } }],
    ]);
  });

  it('lists the network variables it gets by name, and stops passing them at once (tighter)', async () => {
    const api = new FakeApi();
    api.servers = [limited(readOnly, { networkEnv: ['HTTPS_PROXY', 'NODE_EXTRA_CA_CERTS'] })];
    await renderApp(api, 'servers');
    const user = userEvent.setup();
    const detail = server('fs');
    const list = within(detail).getByRole('list', { name: 'How each limit stands here' });
    expect(list.textContent).toContain(
      'Network variables (proxies, CA certificates, package indexes): passed: HTTPS_PROXY, NODE_EXTRA_CA_CERTS (names only: a proxy address can hold a password)',
    );
    await user.click(within(detail).getByRole('checkbox', { name: /Pass the network variables/ }));
    expect(list.textContent).toContain('Network variables (proxies, CA certificates, package indexes): not passed');
    await user.click(within(detail).getByRole('button', { name: 'Apply limits' }));
    await waitFor(() => expect(api.callsOf('setLimits')).toEqual([['fs', { ...readOnly, noPassEnv: ['*'] }]]));
  });
});
