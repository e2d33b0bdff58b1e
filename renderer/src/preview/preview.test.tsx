// @vitest-environment happy-dom
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { computeLineDiff, unpack } from '../diff/diff-core';
import type { DiffEngine } from '../diff/diff-protocol';
import { DiffEngineContext } from '../diff/engine-context';
import { detectPreview } from '../lib/preview-detect';
import { FakeApi, makeCall } from '../test/fake-api';
import { renderApp } from '../test/render-app';
import { DiffView } from './DiffView';

const text = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const rowsOf = (region: HTMLElement, kind: string) => [...region.querySelectorAll(`[data-kind="${kind}"] .dl-text`)].map((e) => e.textContent);

describe('preview selection', () => {
  it('tells a whole-file write from edits, and ignores everything else', () => {
    expect(detectPreview({ path: '/a', content: 'x' })).toMatchObject({ kind: 'write', path: '/a', content: 'x' });
    expect(detectPreview({ file_path: '/a', file_text: 'x' })).toMatchObject({ kind: 'write', path: '/a', content: 'x' });
    expect(detectPreview({ path: '/a', edits: [{ oldText: 'a', newText: 'b' }], dryRun: false })).toEqual({
      kind: 'edit',
      path: '/a',
      edits: [{ oldText: 'a', newText: 'b' }],
    });
    expect(detectPreview({ file_path: '/a', old_string: 'a', new_string: 'b' })).toEqual({ kind: 'edit', path: '/a', edits: [{ oldText: 'a', newText: 'b' }] });
    expect(detectPreview({ source: '/a', destination: '/b' })).toEqual({ kind: 'move', source: '/a', destination: '/b' });
    expect(detectPreview({ path: '/a' }, 'delete_file')).toEqual({ kind: 'delete', path: '/a' });
    expect(detectPreview({ path: '/a' }, 'rm')).toEqual({ kind: 'delete', path: '/a' });
    expect(detectPreview({ path: '/a' }, 'read_file')).toEqual({ kind: 'none' });
    expect(detectPreview({ path: '/a' }, 'remover_of_nothing')).toEqual({ kind: 'none' });
    expect(detectPreview({ path: '/a' })).toEqual({ kind: 'none' });
    expect(detectPreview({ path: '/a', edits: [{ oldText: 'a' }] })).toEqual({ kind: 'none' });
    expect(detectPreview('just a string')).toEqual({ kind: 'none' });
  });
});

describe('write preview', () => {
  it('diffs the current file against the proposed content', async () => {
    const api = new FakeApi();
    api.files['/w/config.txt'] = { exists: true, content: text(30) };
    const proposed = text(30).replace('line 7\n', 'line seven\n').replace('line 20\n', '') + 'line 31\n';
    api.pending = [makeCall({ arguments: { path: '/w/config.txt', content: proposed } })];
    await renderApp(api);
    const preview = screen.getByRole('region', { name: 'Preview' });
    const diff = await within(preview).findByRole('region', { name: 'Changes from Current file to Proposed' });
    expect(preview.textContent).toContain('Overwrites an existing file');
    expect(rowsOf(diff, 'del')).toEqual(['removed: line 7', 'removed: line 20']);
    expect(rowsOf(diff, 'add')).toEqual(['added: line seven', 'added: line 31']);
    expect(api.callsOf('readFileForPreview')).toEqual([['/w/config.txt']]);
    // Folded context can be opened.
    const gap = within(diff).getAllByRole('button', { name: /Show \d+ unchanged lines/ })[0]!;
    await userEvent.click(gap);
    expect(rowsOf(diff, 'ctx')).toContain('line 1');
  });

  it('says "new file" and shows the content when the path does not exist', async () => {
    const api = new FakeApi();
    api.pending = [makeCall({ arguments: { path: '/w/new.txt', content: 'hello\nworld\n' } })];
    await renderApp(api);
    const preview = screen.getByRole('region', { name: 'Preview' });
    const block = await within(preview).findByRole('region', { name: 'New file content' });
    expect(preview.textContent).toContain('New file');
    expect(block.textContent).toBe('1hello2world');
  });

  it('says the preview is unavailable on a broker without readFileForPreview, and still shows the content', async () => {
    const api = new FakeApi();
    api.unsupported.add('readFileForPreview');
    api.pending = [makeCall({ arguments: { path: '/w/x.txt', content: 'proposed' } })];
    await renderApp(api);
    const preview = screen.getByRole('region', { name: 'Preview' });
    expect(await within(preview).findByText(/Preview unavailable: this version of the broker cannot read files/)).toBeTruthy();
    expect(within(preview).getByRole('region', { name: 'Proposed content' }).textContent).toBe('1proposed');
  });

  it('shows a diff per edit for edit-style arguments', async () => {
    const api = new FakeApi();
    api.files['/w/notes.md'] = { exists: true, content: '# Notes\n- milk\n- call Sam\n' };
    api.pending = [
      makeCall({
        tool: 'edit_file',
        arguments: {
          path: '/w/notes.md',
          edits: [
            { oldText: '- milk', newText: '- oat milk' },
            { oldText: '- bread', newText: '' },
          ],
        },
      }),
    ];
    await renderApp(api);
    const preview = screen.getByRole('region', { name: 'Preview' });
    expect(within(preview).getByRole('heading', { name: 'Edit 1 of 2' })).toBeTruthy();
    const diffs = await within(preview).findAllByRole('region', { name: 'Changes from Old text to New text' });
    expect(diffs).toHaveLength(2);
    expect(rowsOf(diffs[0]!, 'del')).toEqual(['removed: - milk']);
    expect(rowsOf(diffs[0]!, 'add')).toEqual(['added: - oat milk']);
    expect(preview.textContent).toContain('Found at line 2 of the current file.');
    expect(preview.textContent).toContain('This text is not in the current file');
  });

  it('falls back to "too different to diff" with both sides viewable', async () => {
    const slow: DiffEngine = { diff: async () => ({ ok: false, reason: 'too-different' }) };
    render(
      <DiffEngineContext.Provider value={slow}>
        <DiffView before="old side" after="new side" beforeLabel="Current file" afterLabel="Proposed" />
      </DiffEngineContext.Provider>,
    );
    expect(await screen.findByText(/Too different to diff/)).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Proposed' }).textContent).toBe('1new side');
    await userEvent.click(screen.getByRole('button', { name: 'Current file' }));
    expect(screen.getByRole('region', { name: 'Current file' }).textContent).toBe('1old side');
  });
});

describe('diff core', () => {
  it('folds unchanged stretches, keeping three lines of context and every hidden line', () => {
    const after = text(100).replace('line 50\n', 'line fifty\n');
    const result = computeLineDiff(text(100), after)!;
    expect(result.added).toBe(1);
    expect(result.removed).toBe(1);
    const rows = unpack(result, text(100), after);
    expect(rows.map((r) => r.t)).toEqual(['gap', 'ctx', 'ctx', 'ctx', 'del', 'add', 'ctx', 'ctx', 'ctx', 'gap']);
    expect(rows.slice(1, 7)).toEqual([
      { t: 'ctx', a: 47, b: 47, text: 'line 47' },
      { t: 'ctx', a: 48, b: 48, text: 'line 48' },
      { t: 'ctx', a: 49, b: 49, text: 'line 49' },
      { t: 'del', a: 50, text: 'line 50' },
      { t: 'add', b: 50, text: 'line fifty' },
      { t: 'ctx', a: 51, b: 51, text: 'line 51' },
    ]);
    const gaps = rows.filter((r) => r.t === 'gap');
    expect(gaps).toEqual([
      { t: 'gap', a: 1, b: 1, count: 46 },
      { t: 'gap', a: 54, b: 54, count: 47 },
    ]);
  });

  it('a 10,000-line diff completes within its time cap', () => {
    const before = text(10_000);
    const after = before
      .split('\n')
      .map((l, i) => (l && i % 10 === 0 ? `${l} changed` : l))
      .join('\n');
    const start = performance.now();
    const result = computeLineDiff(before, after, { timeoutMs: 1300 });
    expect(performance.now() - start).toBeLessThan(3000);
    if (result) expect(result.added).toBe(1000);
  });
});

describe('move and delete previews', () => {
  it('a move shows source and target, whether each exists, and their sizes', async () => {
    const api = new FakeApi();
    api.files['/w/a.txt'] = { exists: true, size: 2100, content: 'x' };
    api.files['/w/b.txt'] = { exists: true, size: 512, content: 'y' };
    api.pending = [makeCall({ tool: 'move_file', arguments: { source: '/w/a.txt', destination: '/w/b.txt' } })];
    await renderApp(api);
    const preview = screen.getByRole('region', { name: 'Preview' });
    expect(within(preview).getByRole('heading').textContent).toBe('Preview of the move');
    await within(preview).findByText('The target exists: it may be replaced');
    expect(preview.textContent).toMatch(/Moves\/w\/a\.txt \(a file of 2\.1 kB\)/);
    expect(preview.textContent).toMatch(/To\/w\/b\.txt \(a file of 512 B\)/);
  });

  it('a move to a new path says so; a folder source is named as one', async () => {
    const api = new FakeApi();
    api.files['/w/dir'] = { exists: true, directory: true, refused: 'The path is a folder.' };
    api.pending = [makeCall({ tool: 'move_file', arguments: { source: '/w/dir', destination: '/w/new' } })];
    await renderApp(api);
    const preview = screen.getByRole('region', { name: 'Preview' });
    await within(preview).findByText('New path');
    expect(preview.textContent).toMatch(/\/w\/dir \(a folder\)/);
    expect(preview.textContent).toMatch(/\/w\/new \(nothing there\)/);
    expect(preview.textContent).not.toMatch(/target exists/);
  });

  it('a delete-style tool shows what would be lost', async () => {
    const api = new FakeApi();
    api.files['/w/old.log'] = { exists: true, size: 3_400_000, tooLarge: true };
    api.pending = [makeCall({ tool: 'delete_file', arguments: { path: '/w/old.log' } })];
    await renderApp(api);
    const preview = screen.getByRole('region', { name: 'Preview' });
    await within(preview).findByText('Deletes an existing file');
    expect(preview.textContent).toMatch(/Deletes \/w\/old\.log \(a file of 3\.4 MB\)/);
  });
});
