// @vitest-environment happy-dom
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, makeCall } from '../test/fake-api';
import { detailShows, renderApp } from '../test/render-app';

const reason = (code: string, severity: 'danger' | 'warning' | 'info', message: string) => ({ code, severity, message }) as never;

describe('queue', () => {
  it('lists pending calls oldest first, including ones that arrive later', async () => {
    const api = new FakeApi();
    const newer = makeCall({ tool: 'newer', createdAt: 3000 });
    const older = makeCall({ tool: 'older', createdAt: 1000 });
    api.pending = [newer, older];
    await renderApp(api);
    act(() => api.emit({ type: 'pending-added', call: makeCall({ tool: 'middle', createdAt: 2000 }) }));
    const cards = screen.getAllByRole('option');
    expect(cards.map((c) => within(c).getByText(/^(older|middle|newer)$/).textContent)).toEqual(['older', 'middle', 'newer']);
    expect(screen.getByRole('button', { name: 'Queue, 3 waiting' })).toBeTruthy();
  });

  it('shows the server, trust, the real tool name, the server-supplied title (unchecked) and the lines in the shared order, three first', async () => {
    const api = new FakeApi();
    api.pending = [
      makeCall({
        tool: 'write_file',
        title: 'Harmless helper',
        reasons: [
          reason('exfiltration-risk', 'danger', 'x'),
          reason('destructive', 'danger', 'x'),
          reason('untrusted-server', 'warning', 'x'),
          reason('no-annotations', 'warning', 'x'),
        ],
        arguments: { path: '/home/ann/notes.md', content: 'y'.repeat(2400) },
        facts: { localReads: ['.env'], targets: [{ key: 'path', path: '/home/ann/notes.md', role: 'write', exists: true, bytes: 2100 }] },
        findings: [
          { code: 'model-instructions', severity: 'danger', message: 'The description tells the model to hide things.', excerpt: 'do not tell the user' },
        ],
      }),
    ];
    await renderApp(api);
    const card = screen.getByRole('option');
    expect(card.textContent).toContain('write_file');
    expect(card.textContent).toContain('“Harmless helper” (server’s title, not checked)');
    expect(within(card).getByText('Untrusted')).toBeTruthy();
    expect(
      within(within(card).getByRole('list', { name: 'About this call' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Data can leave (2.4 kB)', 'Overwrites notes.md', 'Scan finding']);
    expect(card.querySelector('.chip-more:not(.chip-measure)')?.textContent).toBe('+1 more');
    const detail = screen.getByRole('region', { name: 'Call detail' });
    expect(within(detail).getByRole('heading', { level: 2 }).textContent).toBe('write_file');
    expect(detail.textContent).toContain('Title supplied by the server, not checked: “Harmless helper”');
    const items = () =>
      within(within(detail).getByRole('list', { name: 'About this call' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent);
    expect(items()).toHaveLength(3);
    expect(items()[0]).toMatch(/^DangerSends 2\.4 kB to an open-world tool after reading \.envCautious default/);
    expect(items()[1]).toMatch(/^This callOverwrites notes\.md \(2\.1 kB → 2\.4 kB\)Countersign found/);
    expect(items()[2]).toMatch(/^DangerThe description tells the model to hide things\..*do not tell the user/);
    await userEvent.click(within(detail).getByRole('button', { name: 'Show 2 more' }));
    expect(items()[3]).toMatch(/^WarningSays nothing about what it does/);
    expect(items()[4]).toMatch(/^NoteEvery call to fs asks: you have not trusted it/);
  });

  it('an untrusted read-only claim never heads the card: the cautious default does, the claim beside it, unchecked', async () => {
    const api = new FakeApi();
    api.pending = [
      makeCall({
        tool: 'delete_all',
        title: 'View notes (safe)',
        arguments: {},
        reasons: [
          reason('destructive', 'danger', 'x'),
          reason('untrusted-server', 'warning', 'x'),
          reason('open-world', 'warning', 'x'),
          reason('unverified-claims', 'info', 'x'),
        ],
        hints: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
          supplied: { readOnlyHint: true, destructiveHint: true, idempotentHint: true, openWorldHint: true },
        },
      }),
    ];
    await renderApp(api);
    const card = screen.getByRole('option');
    const chips = within(within(card).getByRole('list', { name: 'About this call' })).getAllByRole('listitem');
    expect(chips.map((li) => li.textContent)).toEqual(['May change or delete datanot checked: “only reads”']);
    expect(chips[0]!.className).toContain('chip-warning');
    expect(card.textContent).toContain('(server’s title, not checked)');
    const detail = screen.getByRole('region', { name: 'Call detail' });
    const items = within(within(detail).getByRole('list', { name: 'About this call' }))
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(items).toEqual([
      'WarningTreated as able to change or delete dataCautious defaultIt says it only reads — not checked, because you have not trusted fs',
    ]);
    expect(detail.textContent).not.toMatch(/fs says this only reads|Says it only reads/);
    expect(detail.textContent).toContain('shown in full: treated as able to change data');
  });

  it('a trusted read shows what it does as a fact, and no warning', async () => {
    const api = new FakeApi();
    api.pending = [
      makeCall({
        tool: 'lookup_docs',
        serverTrusted: true,
        title: 'Look up',
        preview: false,
        arguments: { word: 'x' },
        reasons: [reason('policy-always-ask', 'info', 'x')],
        hints: {
          readOnlyHint: true,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: true,
          supplied: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        },
      }),
    ];
    await renderApp(api);
    const card = screen.getByRole('option');
    expect(
      within(within(card).getByRole('list', { name: 'About this call' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Only reads']);
    expect(card.querySelector('.chip-warning, .chip-danger, .chip-more:not(.chip-measure)')).toBeNull();
    expect(card.textContent).toContain('“Look up” (server’s title)');
    const detail = screen.getByRole('region', { name: 'Call detail' });
    expect(within(detail).getByRole('list', { name: 'About this call' }).textContent).toBe(
      'This callOnly readsServer says (you trust it)fs says this tool changes nothing, and you trust fs.',
    );
    expect(detail.querySelector('.sev-bg-warning, .sev-bg-danger')).toBeNull();
  });

  it('a server that calls itself by another server’s name says so on the card', async () => {
    const api = new FakeApi();
    api.pending = [
      makeCall({
        server: 'notes',
        tool: 'bump',
        findings: [
          {
            code: 'server-identity',
            severity: 'danger',
            field: 'serverInfo.name',
            message: "This server calls itself 'fs', the name of another configured server ('fs'): a model or a person may take one for the other.",
            excerpt: 'fs',
          },
        ],
      }),
    ];
    await renderApp(api);
    const chips = within(within(screen.getByRole('option')).getByRole('list', { name: 'About this call' })).getAllByRole('listitem');
    expect(chips[0]!.textContent).toBe("Calls itself 'fs'");
    expect(chips[0]!.className).toContain('chip-danger');
  });

  it('shows how long a call waited and when it times out', async () => {
    const api = new FakeApi();
    const now = Date.now();
    api.pending = [makeCall({ createdAt: now - 65_000, expiresAt: now + 55_000 })];
    await renderApp(api);
    const card = screen.getByRole('option');
    expect(card.textContent).toMatch(/1 min 0[5-6] s · times out in 5[4-5] s/);
  });

  it('keyboard: j/k move, a approves, focus moves to the next call, d denies with the typed reason, Enter opens the detail', async () => {
    const api = new FakeApi();
    api.decideNote = "'fs' is not trusted: later calls still ask.";
    api.pending = [makeCall({ tool: 'one' }), makeCall({ tool: 'two' }), makeCall({ tool: 'three' })];
    const [one, two, three] = api.pending;
    await renderApp(api);
    const user = userEvent.setup();
    const selectedTool = () =>
      screen
        .getAllByRole('option')
        .find((o) => o.getAttribute('aria-selected') === 'true')
        ?.querySelector('.tool-name')?.textContent;

    expect(selectedTool()).toBe('one');
    await user.keyboard('j');
    expect(selectedTool()).toBe('two');
    expect(document.activeElement?.getAttribute('data-id')).toBe(two!.id);
    await user.keyboard('k');
    expect(selectedTool()).toBe('one');
    await detailShows('one');

    await user.keyboard('a');
    await waitFor(() => expect(screen.getAllByRole('option')).toHaveLength(2));
    expect(api.callsOf('decide')).toEqual([[one!.id, { kind: 'allow-once' }]]);
    await waitFor(() => expect(document.activeElement?.getAttribute('data-id')).toBe(two!.id));
    expect(await screen.findByText("'fs' is not trusted: later calls still ask.")).toBeTruthy();

    await detailShows('two');
    await user.keyboard('{Enter}');
    const heading = within(screen.getByRole('region', { name: 'Call detail' })).getByRole('heading', { level: 2 });
    expect(document.activeElement).toBe(heading);
    expect(heading.textContent).toBe('two');

    await user.type(screen.getByLabelText(/Reason for denying/), 'wrong folder');
    // Typing "d" in the reason field must not deny: the field keeps it.
    expect(api.callsOf('decide')).toHaveLength(1);
    screen.getByRole('option', { selected: true }).focus();
    await user.keyboard('d');
    await waitFor(() => expect(api.callsOf('decide')).toHaveLength(2));
    expect(api.callsOf('decide')[1]).toEqual([two!.id, { kind: 'deny', reason: 'wrong folder' }]);
    await waitFor(() => expect(document.activeElement?.getAttribute('data-id')).toBe(three!.id));
  });

  it('the buttons: Approve, Deny, Allow for this session and Always allow send their decisions', async () => {
    const api = new FakeApi();
    api.pending = [makeCall(), makeCall(), makeCall(), makeCall()];
    const ids = api.pending.map((c) => c.id);
    await renderApp(api);
    const user = userEvent.setup();
    const enabled = (name: RegExp) =>
      waitFor(() => {
        const b = screen.getByRole<HTMLButtonElement>('button', { name });
        expect(b.disabled).toBe(false);
        return b;
      });
    await user.click(await enabled(/^Allow for this session/));
    await waitFor(() => expect(screen.getAllByRole('option')).toHaveLength(3));
    await user.click(await enabled(/^Always allow/));
    await waitFor(() => expect(screen.getAllByRole('option')).toHaveLength(2));
    await user.click(await enabled(/^Deny/));
    await waitFor(() => expect(screen.getAllByRole('option')).toHaveLength(1));
    await user.click(await enabled(/^Approve/));
    await screen.findByRole('heading', { name: 'Nothing is waiting for you' });
    expect(api.callsOf('decide')).toEqual([
      [ids[0], { kind: 'allow-session' }],
      [ids[1], { kind: 'always-allow' }],
      [ids[2], { kind: 'deny' }],
      [ids[3], { kind: 'allow-once' }],
    ]);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Nothing is waiting for you' })));
  });

  it("allow with a rule: the scope comes from this call's files, with a lifetime; the guard is passed only when ticked", async () => {
    const api = new FakeApi();
    const guarded = [reason('exfiltration-risk', 'danger', 'x')];
    api.pending = [
      makeCall({ arguments: { path: '/home/ann/proj/src/a.ts', content: 'x' } }),
      makeCall({ arguments: { path: '/home/ann/proj/src/b.ts', content: 'y' }, reasons: guarded }),
    ];
    const ids = api.pending.map((c) => c.id);
    await renderApp(api);
    const user = userEvent.setup();
    const maker = () => screen.getByRole('group', { name: 'Allow with a rule' });
    await user.click(screen.getByRole('button', { name: 'Allow with a rule…' }));
    const scope = within(maker()).getByLabelText<HTMLSelectElement>('Calls with');
    expect([...scope.options].map((o) => o.text)).toEqual([
      'files under /home/ann/proj/src',
      'files under /home/ann/proj',
      'files under /home/ann',
      'only /home/ann/proj/src/a.ts',
      'exactly these arguments',
      'any arguments',
    ]);
    expect(within(maker()).queryByLabelText(/also after this agent read local data/)).toBeNull();
    await user.selectOptions(within(maker()).getByLabelText('For'), '15 minutes');
    await user.click(within(maker()).getByRole('button', { name: 'Allow with this rule' }));
    await waitFor(() => expect(screen.getAllByRole('option')).toHaveLength(1));
    await user.click(screen.getByRole('button', { name: 'Allow with a rule…' }));
    await user.selectOptions(within(maker()).getByLabelText('Calls with'), 'files under /home/ann/proj');
    await user.selectOptions(within(maker()).getByLabelText('For'), 'this client session');
    await user.click(within(maker()).getByLabelText(/also after this agent read local data/));
    await user.click(within(maker()).getByRole('button', { name: 'Allow with this rule' }));
    await screen.findByRole('heading', { name: 'Nothing is waiting for you' });
    expect(api.callsOf('decide')).toEqual([
      [ids[0], { kind: 'allow-rule', rule: { scope: { kind: 'under', dir: '/home/ann/proj/src' }, lifetime: { kind: 'minutes', minutes: 15 } } }],
      [ids[1], { kind: 'allow-rule', rule: { scope: { kind: 'under', dir: '/home/ann/proj' }, lifetime: { kind: 'session' }, coversExfiltration: true } }],
    ]);
  });

  it('a call decided elsewhere leaves the queue; each new call is announced once, never again on a render', async () => {
    const api = new FakeApi();
    api.pending = [makeCall({ tool: 'first' })];
    await renderApp(api);
    const user = userEvent.setup();
    const said = () => Array.from(screen.getByRole('log', { name: 'Announcements' }).children, (p) => p.textContent);
    act(() => api.emit({ type: 'pending-removed', id: api.pending[0]!.id, why: 'timeout' }));
    await screen.findByRole('heading', { name: 'Nothing is waiting for you' });
    act(() => api.emit({ type: 'pending-added', call: makeCall({ tool: 'late_tool', server: 'mem' }) }));
    expect(said()).toEqual(['New call waiting: late_tool on mem.']);
    await user.click(screen.getByRole('button', { name: /^Servers/ }));
    await user.click(screen.getByRole('button', { name: /^Queue/ }));
    await detailShows('late_tool');
    expect(said()).toEqual(['New call waiting: late_tool on mem.']);
    act(() => api.emit({ type: 'pending-added', call: makeCall({ tool: 'evil\u202etool', server: 'fs' }) }));
    expect(said()).toEqual(['New call waiting: late_tool on mem.', 'New call waiting: evil\\u202etool on fs.']);
  });

  it('renders only a window of a 1,000-call queue', async () => {
    const api = new FakeApi();
    api.pending = Array.from({ length: 1000 }, (_, i) => makeCall({ createdAt: i }));
    await renderApp(api);
    const shown = screen.getAllByRole('option');
    expect(shown.length).toBeLessThan(30);
    expect(shown[0]!.getAttribute('aria-setsize')).toBe('1000');
    expect(screen.getByRole('listbox').querySelector('.vlist-inner')!.getAttribute('style')).toContain('height: 130000px');
  });
});
