// Applies the saved theme. 'system' removes the override, so CSS follows prefers-color-scheme.
import { useEffect } from 'react';
import { useApp } from '../store/context';

export function useTheme(): void {
  const theme = useApp((s) => s.settings?.theme ?? 'system');
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
    else delete root.dataset.theme;
  }, [theme]);
}
