// The window lives as long as the app: closing it hides it (the app stays in the tray), a second
// launch or a tray click brings it back.

/** The part of Electron's BrowserWindow used here. */
export interface WindowLike {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
  hide(): void;
}

/** Restores, shows and focuses the window. Returns false when there is no live window. */
export function revealWindow(win: WindowLike | undefined): boolean {
  if (!win || win.isDestroyed()) return false;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
  return true;
}

/** The window's 'close' event: hide instead, unless the app is quitting. */
export function handleCloseRequest(event: { preventDefault(): void }, win: WindowLike, quitting: boolean): 'hidden' | 'closing' {
  if (quitting) return 'closing';
  event.preventDefault();
  win.hide();
  return 'hidden';
}

/**
 * app 'second-instance': someone launched Countersign again. That launch exits (it lost the
 * single-instance lock); this one shows its window, or makes one if it has none yet.
 */
export function handleSecondInstance(getWindow: () => WindowLike | undefined, createWindow: () => void): void {
  if (!revealWindow(getWindow())) createWindow();
}
