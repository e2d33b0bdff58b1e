// Which DiffEngine the preview uses: the worker one in the app, an inline one in tests.
import { createContext, useContext } from 'react';
import type { DiffEngine } from './diff-protocol';

export const DiffEngineContext = createContext<DiffEngine | undefined>(undefined);

export function useDiffEngine(): DiffEngine | undefined {
  return useContext(DiffEngineContext);
}
