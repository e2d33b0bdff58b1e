// The app shell: loads the mirror, keeps it current from events, and shows one screen at a time.
import { useEffect, useMemo, useState } from 'react';
import type { CountersignApi } from '../../../shared/api';
import type { ConnectionSource } from '../bridge/connection';
import type { DesktopApi } from '../bridge/pick-bridge';
import type { DiffEngine } from '../diff/diff-protocol';
import { DiffEngineContext } from '../diff/engine-context';
import { ActivityScreen } from '../activity/ActivityScreen';
import { ClientsScreen } from '../clients/ClientsScreen';
import { QueueScreen } from '../queue/QueueScreen';
import { ServersScreen } from '../servers/ServersScreen';
import { SettingsScreen } from '../settings/SettingsScreen';
import { AppProvider, useActions, useApp } from '../store/context';
import { createAppStore, type AppStore } from '../store/store';
import { Banners, useConnectionState } from './Banners';
import { Nav, type Screen } from './Nav';
import { NavigateContext } from './navigation';
import { Notices } from './Notices';
import { useTheme } from './useTheme';

interface Props {
  api: CountersignApi;
  connection?: ConnectionSource;
  /** The desktop shell's extras (notification clicks, its own settings); absent in a browser. */
  desktop?: DesktopApi;
  diffEngine?: DiffEngine;
  /** Tests pass their own store to look inside. */
  store?: AppStore;
  initialScreen?: Screen;
}

export function App({ api, connection, desktop, diffEngine, store: given, initialScreen = 'queue' }: Props) {
  const store = useMemo(() => given ?? createAppStore(api), [api, given]);
  const conn = useConnectionState(connection);

  // Subscribe first, then load, so nothing in between is lost. Over HTTP the stream must be open before
  // loading (no replay); after a reconnect everything is loaded again.
  useEffect(() => {
    const off = api.subscribe((e) => store.getState().applyEvent(e));
    if (!connection) {
      void store.getState().loadAll();
      return off;
    }
    let wasLive = false;
    const onState = (state: string) => {
      if (state === 'live' && !wasLive) void store.getState().loadAll();
      wasLive = state === 'live';
    };
    const offState = connection.onChange(onState);
    onState(connection.state());
    return () => {
      offState();
      off();
    };
  }, [api, connection, store]);

  return (
    <AppProvider api={api} store={store}>
      <DiffEngineContext.Provider value={diffEngine}>
        <Shell initialScreen={initialScreen} connection={conn} desktop={desktop} />
      </DiffEngineContext.Provider>
    </AppProvider>
  );
}

interface ShellProps {
  initialScreen: Screen;
  connection: ReturnType<typeof useConnectionState>;
  desktop?: DesktopApi;
}

function Shell({ initialScreen, connection, desktop }: ShellProps) {
  const [screen, setScreen] = useState<Screen>(initialScreen);
  const announcement = useApp((s) => s.announcement);
  const { select } = useActions();
  useTheme();
  // A click on a desktop notification opens that call in the queue.
  useEffect(() => desktop?.onOpenCall?.((id) => {
    setScreen('queue');
    select(id);
  }), [desktop, select]);
  return (
    <NavigateContext.Provider value={setScreen}>
      <div className="app">
        <a className="skip-link" href="#main">Skip to content</a>
        <Nav screen={screen} onScreen={setScreen} />
        <main id="main" className="main" tabIndex={-1}>
          <Banners connection={connection} />
          <div className="screen">
            {screen === 'queue' && <QueueScreen />}
            {screen === 'servers' && <ServersScreen />}
            {screen === 'clients' && <ClientsScreen />}
            {screen === 'activity' && <ActivityScreen />}
            {screen === 'settings' && <SettingsScreen desktop={desktop} />}
          </div>
        </main>
        <div className="sr-only" aria-live="polite" aria-atomic="true">{announcement}</div>
        <Notices />
      </div>
    </NavigateContext.Provider>
  );
}
