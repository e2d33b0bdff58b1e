// Renders the real app over a FakeApi, with the inline diff engine (happy-dom has no workers).
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach } from 'vitest';
import { App } from '../app/App';
import type { Screen } from '../app/Nav';
import { createInlineDiffEngine } from '../diff/inline-engine';
import { createAppStore } from '../store/store';
import { FakeApi } from './fake-api';

afterEach(cleanup);

export async function renderApp(api = new FakeApi(), initialScreen: Screen = 'queue') {
  const store = createAppStore(api);
  const view = render(<App api={api} store={store} diffEngine={createInlineDiffEngine()} initialScreen={initialScreen} />);
  await screen.findByRole('navigation', { name: 'Main' });
  // Wait for the first load to settle, so tests start from the broker's state.
  await new Promise<void>((resolve) => {
    if (store.getState().loaded) return resolve();
    const off = store.subscribe((s) => s.loaded && (off(), resolve()));
  });
  return { api, store, ...view };
}
