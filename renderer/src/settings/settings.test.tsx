// @vitest-environment happy-dom
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/api';
import { App } from '../app/App';
import type { DesktopApi } from '../bridge/pick-bridge';
import { createInlineDiffEngine } from '../diff/inline-engine';
import { FakeApi, makeCall } from '../test/fake-api';
import { detailShows, renderApp } from '../test/render-app';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  seq: 1,
  time: '2026-01-01T10:00:00Z',
  server: 'fs',
  tool: 'read_text_file',
  arguments: { path: '/a' },
  decision: 'allow',
  decidedBy: 'policy',
  reasons: ['trusted-read-only'],
  durationMs: 3,
  status: 'ok',
  prev: '0',
  hash: 'abcdef0123456789',
  ...over,
});

describe('settings', () => {
  it('saves the approval timeout, switches the theme, and removes a rule', async () => {
    const api = new FakeApi();
    api.rules = [{ id: 'r1', server: 'fs', tool: 'write_file', action: 'allow', createdAt: '2026-01-01T00:00:00Z' }];
    await renderApp(api, 'settings');
    const user = userEvent.setup();
    const timeout = screen.getByLabelText(/Seconds a call waits/);
    await user.clear(timeout);
    await user.type(timeout, '300');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(api.callsOf('updateSettings')).toEqual([[{ approvalTimeoutSeconds: 300 }]]);

    expect(document.documentElement.dataset.theme).toBeUndefined();
    await user.click(screen.getByLabelText('Dark'));
    expect(api.callsOf('updateSettings')[1]).toEqual([{ theme: 'dark' }]);
    act(() => api.emit({ type: 'settings-changed' }));
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));

    await user.click(screen.getByRole('button', { name: 'Remove rule for write_file on fs' }));
    expect(api.callsOf('removeRule')).toEqual([['r1']]);
    await screen.findByText(/No rules\./);
  });
});

describe('settings: team policy', () => {
  it('shows the policy in effect and one written by hand, sets a path and removes the policy', async () => {
    const api = new FakeApi();
    api.settings = { ...api.settings, policyPath: '/etc/team.json' };
    api.status = {
      ...api.status,
      policy: { path: '/etc/team.json', from: 'person', mayPreapprove: false, unconfirmed: '/home/me/.local/share/countersign/evil.json' },
    };
    await renderApp(api, 'settings');
    const user = userEvent.setup();
    const section = screen.getByRole('heading', { name: 'Team policy' }).closest('section')!;
    await within(section).findByText('/etc/team.json');
    expect(section.textContent).toContain('(set by you)');
    expect(section.textContent).toContain('never lets a server run without your approval');
    expect(within(section).getByRole('alert').textContent).toMatch(
      /settings\.json names \/home\/me\/\.local\/share\/countersign\/evil\.json, but it was not set here, so it is\s+ignored/,
    );

    const field = within(section).getByLabelText(/Policy file/);
    await user.type(field, 'relative.json');
    expect(within(section).getByRole('button', { name: 'Use this policy' })).toHaveProperty('disabled', true);
    await user.clear(field);
    await user.type(field, '/srv/policy.json');
    await user.click(within(section).getByRole('button', { name: 'Use this policy' }));
    await user.click(within(section).getByRole('button', { name: 'Remove the policy' }));
    expect(api.callsOf('updateSettings')).toEqual([[{ policyPath: '/srv/policy.json' }], [{ policyPath: null }]]);
  });
});

describe('settings: rules', () => {
  it('lists rules in plain words with their scope and end, shortens one and stops one covering the guard', async () => {
    const api = new FakeApi();
    const later = new Date(Date.now() + 5 * 3_600_000).toISOString();
    api.rules = [
      {
        id: 'r1',
        server: 'fs',
        tool: 'write_file',
        action: 'allow',
        createdAt: '2026-01-01T00:00:00Z',
        scope: { kind: 'under', dir: '/p/src', keys: ['path'] },
      },
      { id: 'r2', server: 'web', tool: 'post', action: 'allow', createdAt: '2026-01-01T00:00:00Z', expiresAt: later, coversExfiltration: true },
      { id: 'r3', server: 'fs', tool: 'edit_file', action: 'allow', createdAt: '2026-01-01T00:00:00Z', session: 's1' },
    ];
    await renderApp(api, 'settings');
    const user = userEvent.setup();
    const items = (await screen.findAllByRole('listitem')).filter((li) => li.className.includes('rule'));
    expect(items.map((li) => li.querySelector('span')!.textContent)).toEqual([
      "Allow write_file on 'fs': files under /p/src, always",
      expect.stringMatching(/^Allow post on 'web': any arguments, until .+, also after this agent read local data$/),
      "Allow edit_file on 'fs': any arguments, for this client session",
    ]);
    await user.click(screen.getByRole('button', { name: 'Limit to 1 hour (rule for write_file on fs)' }));
    await user.click(screen.getByRole('button', { name: 'Not after local reads (rule for post on web)' }));
    const calls = api.callsOf('updateRule') as Array<[string, { expiresAt?: string; coversExfiltration?: boolean }]>;
    expect(calls.map((c) => c[0])).toEqual(['r1', 'r2']);
    expect(calls[1]![1]).toEqual({ coversExfiltration: false });
    expect(Date.parse(calls[0]![1].expiresAt!) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(screen.queryByRole('button', { name: /1 hour \(rule for edit_file on fs\)/ })).toBeNull();
  });
});

describe('activity', () => {
  it('a call Countersign sent twice (a retry after a timeout) says so, with each sending and how it ended', async () => {
    const api = new FakeApi();
    api.log = [
      entry({
        seq: 1,
        tool: 'sync',
        status: 'ok',
        attempts: [
          {
            status: 'timeout',
            durationMs: 1000,
            detail: 'No answer within 1 s: Countersign cancelled it and sent the call again (an idempotent tool of a trusted server).',
          },
          { status: 'ok', durationMs: 42 },
        ],
      }),
    ];
    await renderApp(api, 'activity');
    const [row] = within(await screen.findByRole('list', { name: 'Audit log' })).getAllByRole('listitem');
    expect(row!.textContent).toContain('sent 2 times');
    await userEvent.click(within(row!).getByRole('button'));
    expect(row!.textContent).toContain('Retriedtimeout after 1000 ms: No answer within 1 s: Countersign cancelled it and sent the call again');
    expect(row!.textContent).toContain('ok after 42 ms');
  });

  it('a launch refused for want of consent reads as such', async () => {
    const api = new FakeApi();
    api.log = [
      entry({
        seq: 1,
        kind: 'launch',
        tool: '*',
        actor: 'countersign',
        decision: 'deny',
        decidedBy: 'policy',
        detail: 'launch refused: its command line is new or changed; it waits for your approval',
      }),
    ];
    await renderApp(api, 'activity');
    const [row] = within(await screen.findByRole('list', { name: 'Audit log' })).getAllByRole('listitem');
    expect(row!.textContent).toContain('Launch refused');
  });

  it('a call a rule allowed names the rule', async () => {
    const api = new FakeApi();
    api.log = [entry({ seq: 1, tool: 'write_file', decidedBy: 'rule', rule: { id: 'r1', text: "write_file on 'fs': files under /p/src, until 09:00" } })];
    await renderApp(api, 'activity');
    const [row] = within(await screen.findByRole('list', { name: 'Audit log' })).getAllByRole('listitem');
    await userEvent.click(within(row!).getByRole('button'));
    expect(row!.textContent).toContain("Allowed by your rulewrite_file on 'fs': files under /p/src, until 09:00");
  });

  it('filters the log, shows full arguments and who decided, and adds new entries without reading the log again', async () => {
    const api = new FakeApi();
    api.log = [
      entry({ seq: 1 }),
      entry({
        seq: 2,
        tool: 'write_file',
        decision: 'deny',
        decidedBy: 'person',
        status: 'denied',
        detail: 'not now',
        arguments: { path: '/b', content: 'x' },
      }),
    ];
    await renderApp(api, 'activity');
    const list = await screen.findByRole('list', { name: 'Audit log' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows[0]!.textContent).toContain('write_file');
    expect(rows[0]!.textContent).toContain('by you');
    expect(rows[1]!.textContent).toContain('by the policy');
    const user = userEvent.setup();
    await user.click(within(rows[0]!).getByRole('button'));
    expect(rows[0]!.textContent).toContain('not now');
    expect(within(rows[0]!).getByRole('list', { name: 'arguments as a tree' }).textContent).toContain('/b');

    await user.selectOptions(screen.getByLabelText('Decision'), 'deny');
    await user.type(screen.getByLabelText('Search tools, servers, arguments'), 'secret');
    await waitFor(() => expect(api.callsOf('queryLog').at(-1)).toEqual([{ decision: 'deny', search: 'secret', limit: 200 }]));
    const before = api.callsOf('queryLog').length;
    // One the filters select goes on top, once; one they do not select stays out; no query either way.
    const denied = entry({ seq: 3, tool: 'move_file', decision: 'deny', decidedBy: 'person', status: 'denied', detail: 'a secret place' });
    act(() => api.emit({ type: 'log-appended', entry: denied }));
    act(() => api.emit({ type: 'log-appended', entry: entry({ seq: 4, tool: 'read_secret' }) }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')[0]!.textContent).toContain('move_file'));
    expect(list.querySelectorAll(':scope > li')).toHaveLength(3);
    expect(list.textContent).not.toContain('read_secret');
    expect(api.callsOf('queryLog')).toHaveLength(before);
    // More arrived than the live tail holds: the screen asks the broker again.
    act(() => api.emit({ type: 'log-appended', entry: entry({ seq: 900, decision: 'deny', detail: 'secret' }) }));
    await waitFor(() => expect(api.callsOf('queryLog')).toHaveLength(before + 1));
  });

  it('shows changes of state with their kind and the surface that made them', async () => {
    const api = new FakeApi();
    api.log = [entry({ seq: 1, kind: 'settings', actor: 'cli', server: '*', tool: '*', detail: 'paused: every call is denied' })];
    await renderApp(api, 'activity');
    const row = within(await screen.findByRole('list', { name: 'Audit log' })).getAllByRole('listitem')[0]!;
    expect(row.textContent).toContain('Paused'); // the label says what happened, not the kind
    expect(row.textContent).toContain('Countersign');
    await userEvent.click(within(row).getByRole('button'));
    expect(row.textContent).toContain('Throughcommand line');
  });
});

describe('desktop shell', () => {
  it('opens the call a notification was clicked for, and shows desktop settings', async () => {
    const api = new FakeApi();
    api.pending = [makeCall({ tool: 'first' }), makeCall({ tool: 'second' })];
    let open: ((id: string) => void) | undefined;
    let notifications = true;
    const desktop: DesktopApi = {
      onOpenCall: (l) => ((open = l), () => (open = undefined)),
      openExternal: async () => false,
      getDesktopSettings: async () => ({ notifications }),
      updateDesktopSettings: async (p) => ({ notifications: (notifications = p.notifications ?? notifications) }),
      installCommandLineTool: async () => ({ installed: false, message: 'Nothing was written.' }),
    };
    render(<App api={api} desktop={desktop} diffEngine={createInlineDiffEngine()} initialScreen="settings" />);
    const box = await screen.findByLabelText('Show a notification for each new call');
    await userEvent.click(box);
    expect(notifications).toBe(false);
    await waitFor(() => expect(open).toBeDefined());
    act(() => open!(api.pending[1]!.id));
    await detailShows('second');
  });
});

describe('install command line tool', () => {
  it('asks main to install, and says what happened, including whether the folder is on PATH', async () => {
    const asked: number[] = [];
    const desktop: DesktopApi = {
      onOpenCall: () => () => undefined,
      openExternal: async () => false,
      getDesktopSettings: async () => ({ notifications: true }),
      updateDesktopSettings: async () => ({ notifications: true }),
      installCommandLineTool: async () => {
        asked.push(1);
        return {
          installed: true,
          path: '/home/me/.local/bin/countersign',
          onPath: false,
          message: 'Installed /home/me/.local/bin/countersign. /home/me/.local/bin is not on your PATH.',
        };
      },
    };
    render(<App api={new FakeApi()} desktop={desktop} diffEngine={createInlineDiffEngine()} initialScreen="settings" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Install command line tool' }));
    expect(asked).toEqual([1]);
    expect((await screen.findByText(/^Installed /)).textContent).toBe('Installed /home/me/.local/bin/countersign. /home/me/.local/bin is not on your PATH.');
  });
});

describe('settings: managed by your organization', () => {
  const managedBase = { from: 'os' as const, block: [], alwaysAsk: [], servers: [] };

  it('shows the managed policy, each restriction with its reason, and marks the rules it limits', async () => {
    const api = new FakeApi();
    api.rules = [{ id: 'r1', server: 'fs', tool: 'write_file', action: 'allow', createdAt: '2026-01-01T00:00:00Z' }];
    api.status = {
      ...api.status,
      managed: {
        ...managedBase,
        state: 'loaded',
        path: '/etc/countersign/managed-policy.json',
        restrictions: [
          { key: 'alwaysAllow', text: 'No "always allow" rules: every call that would ask, asks.', reason: 'SOC 2 control 7' },
          { key: 'maxApprovalTimeout', text: 'A call waits at most 30 s for approval.', reason: 'no hanging agents' },
        ],
      },
    };
    await renderApp(api, 'settings');
    const section = (await screen.findByRole('heading', { name: 'Managed by your organization' })).closest('section')!;
    expect(section.textContent).toContain('/etc/countersign/managed-policy.json');
    expect(section.textContent).toContain('cannot be loosened');
    const items = within(within(section).getByRole('list', { name: 'Restrictions' })).getAllByRole('listitem');
    expect(items.map((li) => li.textContent)).toEqual([
      'No "always allow" rules: every call that would ask, asks. Reason: SOC 2 control 7',
      'A call waits at most 30 s for approval. Reason: no hanging agents',
    ]);
    const rulesSection = screen.getByRole('heading', { name: 'Saved rules' }).closest('section')!;
    expect(within(rulesSection).getByRole('note').textContent).toBe(
      'Managed by your organization: No "always allow" rules: every call that would ask, asks. Reason: SOC 2 control 7',
    );
  });

  it('says an ignored managed policy is ignored, with the fix', async () => {
    const api = new FakeApi();
    api.status = {
      ...api.status,
      managed: {
        ...managedBase,
        state: 'ignored',
        path: '/etc/countersign/managed-policy.json',
        why: "'/etc/countersign' is owned by uid 1000, not root",
        fix: "sudo chown root:root '/etc/countersign'",
        restrictions: [],
      },
    };
    await renderApp(api, 'settings');
    const section = (await screen.findByRole('heading', { name: 'Managed by your organization' })).closest('section')!;
    expect(within(section).getByRole('alert').textContent).toBe(
      "It is ignored: '/etc/countersign' is owned by uid 1000, not root.Fix (an administrator): sudo chown root:root '/etc/countersign'",
    );
  });
});
