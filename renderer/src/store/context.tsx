// React access to the API and the store. Components take what they need from here, never a bridge.
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { CountersignApi } from '../../../shared/api';
import type { AppActions, AppState, AppStore } from './store';

interface Ctx {
  api: CountersignApi;
  store: AppStore;
}

const AppContext = createContext<Ctx | undefined>(undefined);

export function AppProvider({ api, store, children }: Ctx & { children: ReactNode }) {
  return <AppContext.Provider value={{ api, store }}>{children}</AppContext.Provider>;
}

function useCtx(): Ctx {
  const ctx = useContext(AppContext);
  if (!ctx) throw new Error('AppProvider is missing');
  return ctx;
}

export function useApi(): CountersignApi {
  return useCtx().api;
}

export function useApp<T>(selector: (s: AppState & AppActions) => T): T {
  return useStore(useCtx().store, selector);
}

/** Actions never change identity, so reading them does not cause renders. */
export function useActions(): AppActions {
  return useCtx().store.getState();
}
