// What the desktop shell adds next to CountersignApi, as `window.countersignDesktop`. The browser
// (countersign serve) has none of it, so a UI must treat it as optional.

/** Settings that belong to the desktop shell, kept in its own file (desktop.json in the data dir). */
export interface DesktopSettings {
  /** An OS notification for each new pending call. */
  notifications: boolean;
}

export interface DesktopApi {
  /**
   * The person clicked a notification: show this pending call. A click that came before any
   * listener is delivered to the first one. Returns the function that ends the subscription.
   */
  onOpenCall(listener: (id: string) => void): () => void;
  /** Asks the person first; opens only http(s) addresses. Resolves true when the browser was asked to open it. */
  openExternal(url: string): Promise<boolean>;
  getDesktopSettings(): Promise<DesktopSettings>;
  updateDesktopSettings(patch: Partial<DesktopSettings>): Promise<DesktopSettings>;
  /**
   * Asks the main process to install the `countersign` command. It is only a request: main shows a
   * native dialog with exactly what it will write where, and writes nothing without the person's yes.
   */
  installCommandLineTool(): Promise<CliInstallResult>;
}

export interface CliInstallResult {
  installed: boolean;
  /** The launcher written. */
  path?: string;
  /** Whether its folder is on PATH, so new terminals find `countersign`. */
  onPath?: boolean;
  /** What happened, in a sentence for the person. */
  message: string;
}

/** Request/response methods of DesktopApi, as named on the IPC channel. */
export type DesktopMethod = Exclude<keyof DesktopApi, 'onOpenCall'>;

export const DESKTOP_METHODS = [
  'openExternal',
  'getDesktopSettings',
  'updateDesktopSettings',
  'installCommandLineTool',
] as const satisfies readonly DesktopMethod[];

// Fails to typecheck when DesktopApi gains a method that the list above lacks.
type MissingDesktopMethod = Exclude<DesktopMethod, (typeof DESKTOP_METHODS)[number]>;
export const desktopMethodsComplete: [MissingDesktopMethod] extends [never] ? true : MissingDesktopMethod = true;

export const DEFAULT_DESKTOP_SETTINGS: DesktopSettings = { notifications: true };
