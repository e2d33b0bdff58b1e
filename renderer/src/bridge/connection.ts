// The event stream's health, for a banner. Only the HTTP bridge has one; Electron IPC does not drop.
export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized';

export interface ConnectionSource {
  state(): ConnectionState;
  /** Called on every change; a move back to 'live' means events may have been missed: reload. */
  onChange(listener: (state: ConnectionState) => void): () => void;
}
