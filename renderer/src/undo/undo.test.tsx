// @vitest-environment happy-dom
// Undo in the UI, over the fake API: the card says whether a call can be undone before anyone decides;
// Activity offers Undo on entries whose snapshot is kept, shows "Undone" with a link once undone, and
// opens a preview that lists every file, shows three versions on a conflict and applies exactly the
// hash shown ("Restore anyway" being the only way past a conflict). A session revert picks a session.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/api';
import { NO_UNDO_UNKNOWN, type UndoableCall, type UndoPreview } from '../../../shared/undo';
import { FakeApi, makeCall } from '../test/fake-api';
import { renderApp } from '../test/render-app';

const S1 = '1111111111111111';
const S2 = '2222222222222222';
const S3 = '3333333333333333';
const GONE = '9999999999999999';
const HASH = 'c'.repeat(64);

const entry = (seq: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
  seq,
  time: `2026-12-04T10:0${seq}:00.000Z`,
  server: 'fs',
  tool: 'write_file',
  arguments: { path: `/p/${seq}.txt` },
  decision: 'allow',
  decidedBy: 'person',
  reasons: [],
  durationMs: 3,
  status: 'ok',
  client: 'claude-code',
  prev: '0'.repeat(64),
  hash: String(seq).repeat(64).slice(0, 64),
  ...over,
});

const call = (snapshot: string, seq: number, over: Partial<UndoableCall> = {}): UndoableCall => ({
  snapshot,
  seq,
  time: `2026-12-04T10:0${seq}:00.000Z`,
  server: 'fs',
  tool: 'write_file',
  client: 'claude-code',
  session: 'sess-a',
  files: [{ path: `/p/${seq}.txt`, role: 'write' }],
  ...over,
});

/** #1 can be undone, #2 was undone by #3 (an undo, itself undoable), #4 changed nothing it could tell, #5's snapshot is gone. */
function activityApi(): FakeApi {
  const api = new FakeApi();
  api.log = [
    entry(1, { snapshot: S1 }),
    entry(2, { snapshot: S2 }),
    entry(3, { kind: 'undo', actor: 'browser', snapshot: S3, detail: 'Undid 1 call(s): 1 file(s) put back.' }),
    entry(4, { tool: 'read_text_file' }),
    entry(5, { snapshot: GONE }),
  ];
  api.undoable = [call(S3, 3, { undoOf: [S2], session: undefined }), call(S2, 2, { undoneBy: S3 }), call(S1, 1)];
  return api;
}

const row = (seq: number) => document.getElementById(`log-${seq}`)!;

const plan = (over: Partial<UndoPreview> = {}): UndoPreview => ({
  target: { snapshot: S1 },
  calls: [
    call(S1, 1, {
      files: [
        { path: '/p/1.txt', role: 'write' },
        { path: '/p/new.txt', role: 'write' },
      ],
    }),
  ],
  files: [
    {
      path: '/p/1.txt',
      snapshots: [S1],
      action: 'restore',
      becomes: { state: { kind: 'file', size: 4, mode: 0o644, hash: 'x' }, text: 'old\n' },
      after: { state: { kind: 'file', size: 6, mode: 0o644, hash: 'y' }, text: 'agent\n' },
      now: { state: { kind: 'file', size: 6, mode: 0o644 }, text: 'agent\n' },
    },
    {
      path: '/p/new.txt',
      snapshots: [S1],
      action: 'remove',
      becomes: { state: { kind: 'missing' }, noText: 'missing' },
      after: { state: { kind: 'file', size: 4, mode: 0o644, hash: 'z' }, text: 'new\n' },
      now: { state: { kind: 'file', size: 4, mode: 0o644 }, text: 'new\n' },
    },
  ],
  conflicts: 0,
  hash: HASH,
  ...over,
});

async function openActivity(api: FakeApi) {
  await renderApp(api, 'activity');
  await screen.findByRole('list', { name: 'Audit log' });
  await waitFor(() => expect(within(row(1)).getByRole('button', { name: 'Undo what #1 changed' })).toBeTruthy());
}

describe('the card says whether a call can be undone', () => {
  it('shows each availability on the queue card and in the detail, before the person decides', async () => {
    const api = new FakeApi();
    api.pending = [
      makeCall({ tool: 'write_file', undo: { kind: 'available' }, createdAt: 1 }),
      makeCall({ tool: 'run_script', undo: { kind: 'none', why: NO_UNDO_UNKNOWN }, createdAt: 2 }),
      makeCall({ tool: 'copy_big', undo: { kind: 'too-large', paths: ['/p/big.iso'], limitBytes: 100e6 }, createdAt: 3 }),
    ];
    await renderApp(api);
    const card = (tool: string) => screen.getAllByRole('option').find((o) => o.textContent?.includes(tool))!;
    expect(card('write_file').querySelector('.undo-note')!.textContent).toBe('Undo available');
    expect(card('run_script').querySelector('.undo-note')!.textContent).toBe('No undo: Countersign cannot tell which files this changes');
    expect(card('copy_big').querySelector('.undo-note')!.textContent).toBe('Undo partial: /p/big.iso is over the 100 MB limit, so its content is not kept');
    // The detail of the first call (open, undecided) says it too.
    const detail = document.querySelector('.detail')!;
    const dt = [...detail.querySelectorAll('dt')].find((d) => d.textContent === 'Undo')!;
    expect(dt.nextElementSibling!.textContent).toBe('Undo available');
    expect(api.callsOf('decide')).toEqual([]);
  });

  it('says nothing when the broker gave no availability (an older broker)', async () => {
    const api = new FakeApi();
    api.pending = [makeCall()];
    await renderApp(api);
    expect(document.querySelector('.undo-note')).toBeNull();
  });
});

describe('Activity: the Undo button', () => {
  it('is offered where the snapshot is kept and not undone, says Undone with a link otherwise', async () => {
    const api = activityApi();
    await openActivity(api);
    expect(within(row(1)).getByRole('button', { name: 'Undo what #1 changed' })).toBeTruthy();
    // Undone: no button, a link to the undo's entry.
    expect(within(row(2)).queryByRole('button', { name: /Undo/ })).toBeNull();
    expect(row(2).querySelector('.log-undo')!.textContent).toBe('Undone by #3');
    // The undo entry itself can be undone.
    expect(within(row(3)).getByRole('button', { name: 'Undo this undo: put back what it replaced' })).toBeTruthy();
    expect(within(row(3)).getByText('Undo', { selector: '.badge' })).toBeTruthy();
    // No snapshot: nothing; a pruned one: said.
    expect(row(4).querySelector('.log-undo')!.textContent).toBe('');
    expect(row(5).querySelector('.log-undo')!.textContent).toBe('Snapshot gone');

    await userEvent.click(within(row(2)).getByRole('link', { name: 'by #3' }));
    await waitFor(() => expect(within(row(3)).getAllByRole('button')[0]!.getAttribute('aria-expanded')).toBe('true'));
    expect(document.activeElement).toBe(within(row(3)).getAllByRole('button')[0]);
  });

  it('turns into Undone when the undo is logged (the store refreshes its mirror on the event)', async () => {
    const api = activityApi();
    await openActivity(api);
    const before = api.callsOf('listUndoable').length;
    api.undoable = [
      call('4444444444444444', 6, { undoOf: [S1] }),
      ...api.undoable.map((c) => (c.snapshot === S1 ? { ...c, undoneBy: '4444444444444444' } : c)),
    ];
    const undo = entry(6, { kind: 'undo', snapshot: '4444444444444444' });
    api.log.push(undo);
    api.emit({ type: 'log-appended', entry: undo });
    await waitFor(() => expect(row(1).querySelector('.log-undo')!.textContent).toBe('Undone by #6'));
    expect(api.callsOf('listUndoable').length).toBe(before + 1);
    // An entry without a snapshot does not make it ask again.
    const plain = entry(7);
    api.emit({ type: 'log-appended', entry: plain });
    await screen.findByText('7 entries, newest first.');
    expect(api.callsOf('listUndoable').length).toBe(before + 1);
  });
});

describe('Activity: the undo preview', () => {
  it('lists every file with what it becomes, shows the hash, and applies exactly that hash', async () => {
    const api = activityApi();
    api.undoPreview = plan();
    api.undoResult = {
      snapshot: '5'.repeat(16),
      files: [
        { path: '/p/1.txt', action: 'restore', done: true },
        { path: '/p/new.txt', action: 'remove', done: true },
      ],
    };
    await openActivity(api);
    await userEvent.click(within(row(1)).getByRole('button', { name: 'Undo what #1 changed' }));
    const review = await screen.findByRole('region', { name: 'Undo what #1 changed: write_file on fs' });
    expect(api.callsOf('previewUndo')).toEqual([[{ snapshot: S1 }]]);
    const items = within(review).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.undo-file-head')!.textContent)).toEqual([
      '/p/1.txtrestored to its content from before the call',
      '/p/new.txtremoved again (it did not exist before the call)',
    ]);
    // What undo writes, as a diff from now.
    const diff = within(items[0]!).getByRole('region', { name: 'Changes from Now to After undo' });
    expect([...diff.querySelectorAll('[data-kind="del"] .dl-text')].map((e) => e.textContent)).toEqual(['removed: agent']);
    expect([...diff.querySelectorAll('[data-kind="add"] .dl-text')].map((e) => e.textContent)).toEqual(['added: old']);
    expect(within(review).getByText(HASH.slice(0, 16)).getAttribute('title')).toBe(HASH);
    expect(within(review).queryByRole('alert')).toBeNull();
    expect(within(review).queryByRole('button', { name: 'Restore anyway' })).toBeNull();

    await userEvent.click(within(review).getByRole('button', { name: 'Undo 2 files' }));
    expect(api.callsOf('undo')).toEqual([[{ snapshot: S1 }, HASH]]);
    await within(review).findByText('Undone: 2 files put back.');
  });

  it('says a move is put back', async () => {
    const api = activityApi();
    api.undoPreview = plan({
      calls: [
        call(S1, 1, {
          tool: 'move_file',
          files: [
            { path: '/p/a.txt', role: 'move-from' },
            { path: '/p/b.txt', role: 'move-to' },
          ],
        }),
      ],
      files: [
        {
          path: '/p/a.txt',
          snapshots: [S1],
          action: 'restore',
          becomes: { state: { kind: 'file', size: 2, mode: 420, hash: 'h' }, text: 'a\n' },
          now: { state: { kind: 'missing' }, noText: 'missing' },
        },
        {
          path: '/p/b.txt',
          snapshots: [S1],
          action: 'remove',
          becomes: { state: { kind: 'missing' }, noText: 'missing' },
          now: { state: { kind: 'file', size: 2, mode: 420 }, text: 'a\n' },
        },
      ],
    });
    await openActivity(api);
    await userEvent.click(within(row(1)).getByRole('button', { name: 'Undo what #1 changed' }));
    const review = await screen.findByRole('region', { name: /^Undo what #1 changed/ });
    await within(review).findByText('moved back: put back here with its content from before the call');
    expect(within(review).getByText('removed from where the call moved it (it is put back at its old place)')).toBeTruthy();
  });
});

describe('Activity: a file changed since the call', () => {
  const conflicted = () =>
    plan({
      conflicts: 1,
      files: [
        {
          ...plan().files[0]!,
          now: { state: { kind: 'file', size: 12, mode: 0o644 }, text: 'agent\nmine\n' },
          conflict: '/p/1.txt changed after the call (write_file) left it.',
        },
      ],
    });

  it('warns, shows the three versions, and only "Restore anyway" applies, with the confirmation', async () => {
    const api = activityApi();
    api.undoPreview = conflicted();
    await openActivity(api);
    await userEvent.click(within(row(1)).getByRole('button', { name: 'Undo what #1 changed' }));
    const review = await screen.findByRole('region', { name: /^Undo what #1 changed/ });
    const alert = await within(review).findByRole('alert');
    expect(alert.textContent).toMatch(/^1 file changed since the call\. .*Undo would overwrite those edits/);
    const three = review.querySelector('dl.undo-three')!;
    expect(three.getAttribute('aria-label')).toBe('Three versions of /p/1.txt');
    expect([...three.querySelectorAll('dt')].map((d) => d.textContent)).toEqual(['Before the call', 'After the call', 'Now']);
    // It opens on what changed since the call; the other two pairs are a click away.
    const since = within(review).getByRole('region', { name: 'Changes from After the call to Now' });
    expect([...since.querySelectorAll('[data-kind="add"] .dl-text')].map((e) => e.textContent)).toEqual(['added: mine']);
    await userEvent.click(within(review).getByRole('button', { name: 'What the call did' }));
    expect(within(review).getByRole('region', { name: 'Changes from Before the call to After the call' })).toBeTruthy();
    await userEvent.click(within(review).getByRole('button', { name: 'What undo writes' }));
    expect(within(review).getByRole('region', { name: 'Changes from Now to After undo' })).toBeTruthy();

    expect(within(review).queryByRole('button', { name: /^Undo \d/ })).toBeNull();
    await userEvent.click(within(review).getByRole('button', { name: 'Restore anyway' }));
    expect(api.callsOf('undo')).toEqual([[{ snapshot: S1 }, HASH, { confirmConflicts: true }]]);
  });

  it('a refusal (the files moved since the preview) is shown, and Look again asks for a new preview', async () => {
    const api = activityApi();
    api.undoPreview = conflicted();
    api.undo = async () => {
      throw new Error('The files changed after the undo preview was shown, so nothing was written. Look at the preview again.');
    };
    await openActivity(api);
    await userEvent.click(within(row(1)).getByRole('button', { name: 'Undo what #1 changed' }));
    const review = await screen.findByRole('region', { name: /^Undo what #1 changed/ });
    await userEvent.click(await within(review).findByRole('button', { name: 'Restore anyway' }));
    await within(review).findByText(/so nothing was written/);
    await userEvent.click(within(review).getByRole('button', { name: 'Look again' }));
    await waitFor(() => expect(api.callsOf('previewUndo')).toHaveLength(2));
  });
});

describe('Activity: revert a session', () => {
  it('picks a session (or all of that agent’s) and a time, and previews exactly that', async () => {
    const api = activityApi();
    api.undoable.push(call('6666666666666666', 8, { client: 'cursor', session: 'sess-b', time: '2026-12-04T11:00:00.000Z' }));
    await openActivity(api);
    await userEvent.click(screen.getByRole('button', { name: 'Revert a session…' }));
    const form = screen.getByRole('form', { name: 'Revert a session' });
    const select = within(form).getByLabelText<HTMLSelectElement>('Session');
    // Newest first; undone calls and undos are not counted.
    expect([...select.options].map((o) => o.textContent)).toEqual([
      expect.stringMatching(/^cursor · 1 change · /),
      expect.stringMatching(/^claude-code · 1 change · /),
    ]);
    await userEvent.selectOptions(select, 'sess-a');
    await userEvent.click(within(form).getByRole('button', { name: 'Preview the revert' }));
    await screen.findByRole('region', { name: 'Revert everything claude-code changed in this session' });
    expect(api.callsOf('previewUndo').at(-1)).toEqual([{ session: 'sess-a' }]);
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));

    await userEvent.click(screen.getByRole('button', { name: 'Revert a session…' }));
    const again = screen.getByRole('form', { name: 'Revert a session' });
    await userEvent.selectOptions(within(again).getByLabelText('Session'), 'sess-a');
    await userEvent.click(within(again).getByRole('checkbox', { name: /Every session of claude-code/ }));
    await userEvent.type(within(again).getByLabelText('Since (optional)'), '2026-12-04T10:05');
    await userEvent.click(within(again).getByRole('button', { name: 'Preview the revert' }));
    const target = api.callsOf('previewUndo').at(-1)![0] as { client: string; since: string };
    expect(target.client).toBe('claude-code');
    expect(new Date(target.since).getTime()).toBe(new Date('2026-12-04T10:05').getTime());
  });

  it('keeps showing what it did once nothing is left to revert', async () => {
    const api = activityApi();
    api.undoPreview = plan({ target: { session: 'sess-a' } });
    api.undoResult = {
      snapshot: '7'.repeat(16),
      files: [
        { path: '/p/1.txt', action: 'restore', done: true },
        { path: '/p/new.txt', action: 'remove', done: false, error: 'EACCES' },
      ],
    };
    await openActivity(api);
    await userEvent.click(screen.getByRole('button', { name: 'Revert a session…' }));
    await userEvent.click(screen.getByRole('button', { name: 'Preview the revert' }));
    const review = await screen.findByRole('region', { name: 'Revert everything claude-code changed in this session' });
    await userEvent.click(await within(review).findByRole('button', { name: 'Undo 2 files' }));
    expect(api.callsOf('undo')).toEqual([[{ session: 'sess-a' }, HASH]]);
    // The undo is logged: every call of the session is now undone.
    api.undoable = api.undoable.map((c) => ({ ...c, undoneBy: c.undoneBy ?? '7'.repeat(16) }));
    const undo = entry(6, { kind: 'undo', server: '*', tool: '*', snapshot: '7'.repeat(16) });
    api.emit({ type: 'log-appended', entry: undo });
    await waitFor(() => expect(row(1).querySelector('.log-undo')!.textContent).toBe('Undone'));
    // Still on screen (not a detached node): the person sees what was done and what failed.
    expect(review.isConnected).toBe(true);
    expect(within(review).getByText('Undone: 1 file put back.')).toBeTruthy();
    expect(within(review).getByRole('list', { name: 'Not put back' }).textContent).toBe('/p/new.txt: EACCES');
    await userEvent.click(within(review).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('button', { name: 'Revert a session…' })).toBeNull();
  });
});

describe('Settings: the undo store’s bounds', () => {
  it('shows the defaults and saves what the person typed', async () => {
    const api = new FakeApi();
    await renderApp(api, 'settings');
    const section = await screen.findByRole('region', { name: 'Undo snapshots' });
    const size = within(section).getByLabelText('Keep up to (MB, all snapshots)');
    expect(
      [size, within(section).getByLabelText('For (days)'), within(section).getByLabelText('Largest file kept (MB)')].map((i) => (i as HTMLInputElement).value),
    ).toEqual(['1024', '30', '100']);
    const save = within(section).getByRole('button', { name: 'Save limits' });
    expect((save as HTMLButtonElement).disabled).toBe(true);
    await userEvent.clear(size);
    await userEvent.type(size, '0');
    expect((save as HTMLButtonElement).disabled).toBe(true);
    await userEvent.clear(size);
    await userEvent.type(size, '2048');
    await userEvent.click(save);
    expect(api.callsOf('updateSettings')).toEqual([[{ undoMaxMB: 2048, undoMaxDays: 30, undoMaxFileMB: 100 }]]);
  });
});
