// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, makeServer } from '../test/fake-api';
import { renderApp } from '../test/render-app';

describe('empty states', () => {
  it('with no servers, teaches the add command and imports a pasted mcpServers object', async () => {
    const api = new FakeApi();
    api.servers = [];
    await renderApp(api);
    expect(screen.getByRole('heading', { name: 'Nothing to approve yet' })).toBeTruthy();
    expect(screen.getByLabelText('Add server command').textContent).toBe('countersign servers add <name> -- <command> [args…]');
    const user = userEvent.setup();
    const config = { mcpServers: { fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'] } } };
    await user.click(screen.getByLabelText(/Paste an mcpServers JSON object/));
    await user.paste(JSON.stringify(config));
    await user.click(screen.getByRole('button', { name: 'Import servers' }));
    expect(api.callsOf('importServers')).toEqual([[config.mcpServers]]);
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeTruthy());
  });

  it('refuses JSON that is not an object, without calling the broker', async () => {
    const api = new FakeApi();
    api.servers = [];
    await renderApp(api);
    const user = userEvent.setup();
    await user.click(screen.getByLabelText(/Paste an mcpServers JSON object/));
    await user.paste('[1, 2]');
    await user.click(screen.getByRole('button', { name: 'Import servers' }));
    expect(screen.getByRole('alert').textContent).toBe('Expected a JSON object.');
    expect(api.callsOf('importServers')).toEqual([]);
  });

  it('with nothing pending, says what Countersign is doing and how to point a client at it', async () => {
    const api = new FakeApi();
    api.servers = [makeServer({ name: 'files', sessions: 2 })];
    await renderApp(api);
    expect(screen.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeTruthy();
    expect(document.body.textContent).toContain('relaying 1 server with 2 open client sessions');
    expect(screen.getByLabelText('Connect command').textContent).toBe('/usr/bin/node /opt/countersign/bin/countersign.mjs connect files');
    expect(screen.getByLabelText('MCP URL').textContent).toBe('http://127.0.0.1:4000/mcp/files');
  });

  it('shows the exact client entry to paste: the absolute command from the broker, never npx', async () => {
    const api = new FakeApi();
    api.servers = [makeServer({ name: 'files' })];
    api.status = {
      ...api.status,
      connectLaunch: {
        command: '/Applications/Countersign.app/Contents/MacOS/Countersign',
        args: ['--cli', 'connect', '<server>', '--data-dir', '/d'],
        note: 'A note about this command.',
      },
    };
    await renderApp(api);
    const entry = JSON.parse(screen.getByLabelText('Client entry').textContent ?? '') as Record<string, { command: string; args: string[] }>;
    expect(entry).toEqual({
      files: { command: '/Applications/Countersign.app/Contents/MacOS/Countersign', args: ['--cli', 'connect', 'files', '--data-dir', '/d'] },
    });
    expect(document.body.textContent).not.toContain('npx');
    expect(screen.getByRole('note').textContent).toBe('A note about this command.');
    expect(document.body.textContent).toContain('Open Clients');
  });
});
