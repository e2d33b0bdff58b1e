// The app shell: loads the mirror, keeps it current from events, and shows one screen at a time.
import { useCallback, useEffect, useMemo, useState } from 'react';
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
import { notifyPermission } from '../notify/browser-notifications';
import { useBrowserNotifications } from '../notify/useBrowserNotifications';
import { AppProvider, useActions, useApi, useApp } from '../store/context';
import { createAppStore, type AppStore } from '../store/store';
import { Announcements } from './Announcements';
import { Banners, useConnectionState } from './Banners';
import { Nav, type Screen } from './Nav';
import { NavigateContext } from './navigation';
import { Notices } from './Notices';
import { useTabTitle } from './useTabTitle';
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
  const api = useApi();
  const { revealCall, setBrowserNotify } = useActions();
  const notify = useApp((s) => s.browserNotify);
  useTheme();
  useTabTitle();
  // A click on a notification (the desktop shell's, or the browser's) opens that call's card.
  const openCall = useCallback(
    (id: string) => {
      setScreen('queue');
      revealCall(id);
    },
    [revealCall],
  );
  useEffect(() => desktop?.onOpenCall?.(openCall), [desktop, openCall]);
  useEffect(() => {
    if (!desktop) setBrowserNotify({ permission: notifyPermission() });
  }, [desktop, setBrowserNotify]);
  useBrowserNotifications(api, !desktop && notify.permission === 'granted' && notify.on, openCall);
  return (
    <NavigateContext.Provider value={setScreen}>
      <div className="app">
        <a className="skip-link" href="#main">
          Skip to content
        </a>
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
        <Announcements />
        <Notices />
      </div>
    </NavigateContext.Provider>
  );
}
