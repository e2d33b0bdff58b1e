// @vitest-environment happy-dom
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi } from '../test/fake-api';
import { renderApp } from '../test/render-app';

describe('grants written outside Countersign', () => {
  it('lists them on the Servers screen and confirms or discards each as shown', async () => {
    const api = new FakeApi();
    api.unsealed = [
      {
        kind: 'trust',
        server: 'fs',
        hash: 'a'.repeat(64),
        what: "'fs' is marked trusted in settings.json, but that trust was not given in Countersign.",
        launch: { commandLine: ['node', 'fs.js'], envNames: [], headerNames: [], hash: 'a'.repeat(64), approved: true },
      },
      { kind: 'rule', server: 'fs', tool: 'write_file', ruleId: 'r1', hash: 'b'.repeat(64), what: 'An "always allow" rule for write_file.' },
    ];
    await renderApp(api, 'servers');
    const list = await screen.findByRole('list', { name: 'Grants not confirmed' });
    const items = within(list).getAllByRole('listitem');
    expect(items[0]!.textContent).toContain('marked trusted');
    expect(within(items[0]!).getByRole('list', { name: 'Command line, one argument per item' }).textContent).toContain('fs.js');
    const user = userEvent.setup();
    await user.click(within(items[0]!).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Grants not confirmed' })).getAllByRole('listitem')).toHaveLength(1));
    const [left] = within(screen.getByRole('list', { name: 'Grants not confirmed' })).getAllByRole('listitem');
    expect(left!.textContent).toContain('write_file');
    await user.click(within(left!).getByRole('button', { name: 'Discard' }));
    expect(api.callsOf('confirmUnsealed')).toEqual([[{ kind: 'trust', server: 'fs', hash: 'a'.repeat(64) }]]);
    expect(api.callsOf('discardUnsealed')).toEqual([[{ kind: 'rule', server: 'fs', hash: 'b'.repeat(64), ruleId: 'r1' }]]);
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Grants not confirmed' })).toBeNull());
  });

  it('lists a team policy path written by hand with its file, and confirms it as shown', async () => {
    const api = new FakeApi();
    api.unsealed = [
      {
        kind: 'policy',
        server: '*',
        path: '/data/evil.json',
        hash: 'c'.repeat(64),
        what: 'settings.json names the team policy file, but it was not set in Countersign.',
      },
    ];
    await renderApp(api, 'servers');
    const [item] = within(await screen.findByRole('list', { name: 'Grants not confirmed' })).getAllByRole('listitem');
    expect(item!.textContent).toContain('Team policy file');
    expect(item!.textContent).toContain('File: /data/evil.json');
    await userEvent.setup().click(within(item!).getByRole('button', { name: 'Confirm' }));
    expect(api.callsOf('confirmUnsealed')).toEqual([[{ kind: 'policy', server: '*', hash: 'c'.repeat(64) }]]);
  });
});
