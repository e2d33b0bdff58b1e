// Renders the real app over a FakeApi, with the inline diff engine (happy-dom has no workers).
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, expect } from 'vitest';
import { App } from '../app/App';
import type { Screen } from '../app/Nav';
import { createInlineDiffEngine } from '../diff/inline-engine';
import { createAppStore } from '../store/store';
import { FakeApi } from './fake-api';

afterEach(cleanup);

/** Waits until the call detail shows a call to `tool`. */
export async function detailShows(tool: string): Promise<void> {
  await waitFor(() => expect(document.querySelector('.detail .detail-title')?.textContent).toBe(tool));
}

export async function renderApp(api = new FakeApi(), initialScreen: Screen = 'queue') {
  const store = createAppStore(api);
  const view = render(<App api={api} store={store} diffEngine={createInlineDiffEngine()} initialScreen={initialScreen} />);
  await screen.findByRole('navigation', { name: 'Main' });
  // Wait for the first load to settle, so tests start from the broker's state.
  await new Promise<void>((resolve) => {
    if (store.getState().loaded) return resolve();
    const off = store.subscribe((s) => s.loaded && (off(), resolve()));
  });
  // The call detail renders in the background: wait for it, as a person would.
  if (store.getState().pending.length && initialScreen === 'queue') await detailShows(store.getState().pending[0]!.tool);
  return { api, store, ...view };
}
