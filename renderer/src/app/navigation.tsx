// Lets a screen send the person to another one (the empty queue points at Clients).
import { createContext, useContext } from 'react';
import type { Screen } from './Nav';

export const NavigateContext = createContext<(screen: Screen) => void>(() => undefined);

export function useNavigate(): (screen: Screen) => void {
  return useContext(NavigateContext);
}
