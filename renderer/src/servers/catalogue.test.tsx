// @vitest-environment happy-dom
// The Servers screen and the organization's catalogue: "Trusted by your organization" with the entry,
// what differs from an entry, a managed restriction's refusal with its reason, and the person's untrust.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, makeServer } from '../test/fake-api';
import { renderApp } from '../test/render-app';

const detail = (name: string) => screen.getByRole('region', { name: `Server ${name}` });
const list = () => screen.getByRole('list', { name: 'Servers' });

describe('the Servers screen and the catalogue', () => {
  it('shows a server the organization trusts, with its entry, in the list and the detail; Untrust declines it', async () => {
    const api = new FakeApi();
    api.servers = [makeServer({ catalogue: { state: 'trusted', entry: 'Filesystem (reviewed)', contentChecked: true } })];
    await renderApp(api, 'servers');
    expect(within(list()).getByText('Trusted by your organization')).toBeTruthy();
    const note = within(detail('fs')).getByRole('note', { name: "Your organization's catalogue" });
    expect(note.textContent).toContain('Trusted by your organization: it runs exactly what catalogue entry “Filesystem (reviewed)” names.');
    expect(within(detail('fs')).getByText(/^Trusted by your organization: tools that say they only read run without asking/)).toBeTruthy();
    await userEvent.click(within(detail('fs')).getByRole('button', { name: 'Untrust' }));
    await waitFor(() => expect(api.callsOf('setTrust')).toEqual([['fs', false]]));
  });

  it('after the person untrusts it, says so and no longer shows organization trust as trust', async () => {
    const api = new FakeApi();
    api.servers = [makeServer({ catalogue: { state: 'trusted', entry: 'fs entry', contentChecked: true, declined: true } })];
    await renderApp(api, 'servers');
    expect(within(list()).queryByText('Trusted by your organization')).toBeNull();
    expect(within(list()).getByText('Untrusted')).toBeTruthy();
    expect(within(detail('fs')).getByRole('note', { name: "Your organization's catalogue" }).textContent).toContain('You chose not to trust it');
    expect(within(detail('fs')).getByRole('button', { name: 'Trust' })).toBeTruthy();
  });

  it('lists every difference from the catalogue entry, escaped, and leaves the server untrusted', async () => {
    const api = new FakeApi();
    api.servers = [
      makeServer({
        catalogue: {
          state: 'mismatch',
          entry: 'memory',
          contentChecked: true,
          differences: ['it runs memory version 2.0.0, not the reviewed 1.0.0', "it runs with no limits, looser than the entry's no network\u202e"],
        },
      }),
    ];
    await renderApp(api, 'servers');
    expect(within(list()).getByText('Untrusted')).toBeTruthy();
    const note = within(detail('fs')).getByRole('note', { name: "Your organization's catalogue" });
    expect(note.textContent).toContain('Not trusted by your organization: it differs from catalogue entry “memory”:');
    const items = within(note)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(items[0]).toBe('it runs memory version 2.0.0, not the reviewed 1.0.0');
    // A control character from the file or the server is shown, never applied.
    expect(items[1]).not.toContain('\u202e');
  });

  it("shows a managed restriction's refusal with the organization's reason, and the server as blocked", async () => {
    const api = new FakeApi();
    const refused = 'your organization lets only the servers in its catalogue run (its reason: "Security review SR-12"), and it matches no catalogue entry';
    api.servers = [makeServer({ status: 'blocked', catalogue: { state: 'none', contentChecked: false, refused } })];
    await renderApp(api, 'servers');
    const note = within(detail('fs')).getByRole('note', { name: 'Refused by your organization' });
    expect(note.textContent).toBe(`Your organization will not let it start: ${refused}`);
    expect(within(list()).getByText('Blocked by policy')).toBeTruthy();
  });

  it('shows nothing of a catalogue when no managed policy has one', async () => {
    const api = new FakeApi();
    api.servers = [makeServer()];
    await renderApp(api, 'servers');
    expect(within(detail('fs')).queryByRole('note', { name: "Your organization's catalogue" })).toBeNull();
    expect(within(list()).queryByText('Trusted by your organization')).toBeNull();
  });
});
