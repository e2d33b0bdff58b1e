// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi } from '../test/fake-api';
import { renderApp } from '../test/render-app';

describe('approval inside the client (Settings)', () => {
  it('lists clients that can show forms, off by default, and turns one on and off through the API', async () => {
    const api = new FakeApi();
    api.inline = [{ client: 'form-client', enabled: false, seen: true }];
    await renderApp(api, 'settings');
    const box = await screen.findByRole('checkbox', { name: /Let form-client answer pending calls in its own form/ });
    expect((box as HTMLInputElement).checked).toBe(false);
    await userEvent.click(box);
    await waitFor(() => expect((box as HTMLInputElement).checked).toBe(true));
    expect(api.callsOf('setInlineApproval')).toEqual([['form-client', true]]);
    await userEvent.click(box);
    await waitFor(() => expect((box as HTMLInputElement).checked).toBe(false));
    expect(api.callsOf('setInlineApproval')).toEqual([
      ['form-client', true],
      ['form-client', false],
    ]);
  });

  it('says so when no client that can show forms has asked yet', async () => {
    await renderApp(new FakeApi(), 'settings');
    expect(await screen.findByText('No client that can show forms has asked for a decision yet.')).toBeTruthy();
  });
});
