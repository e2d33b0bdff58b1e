// Quitting ends the broker cleanly before the process exits: sessions closed, servers stopped, the
// socket and lock removed. The first 'before-quit' is held until stop() settles, then quit runs again.

export interface QuitSequenceOptions {
  /** Ends the broker and its servers (RunningBroker.stop) and anything else the shell started. */
  stop(): Promise<void>;
  /** Asks the app to quit again (app.quit); this time it goes through. */
  quitAgain(): void;
  /** A broker that hangs must not keep the app alive forever. */
  timeoutMs?: number;
  onError?(error: unknown): void;
}

export class QuitSequence {
  #phase: 'running' | 'stopping' | 'stopped' = 'running';
  readonly #opts: QuitSequenceOptions;

  constructor(opts: QuitSequenceOptions) {
    this.#opts = opts;
  }

  /** True from the first quit request on: windows close for real instead of hiding. */
  get quitting(): boolean {
    return this.#phase !== 'running';
  }

  get stopped(): boolean {
    return this.#phase === 'stopped';
  }

  /** Wire to app 'before-quit'. */
  onBeforeQuit(event: { preventDefault(): void }): void {
    if (this.#phase === 'stopped') return;
    event.preventDefault();
    if (this.#phase === 'stopping') return;
    this.#phase = 'stopping';
    void this.#stop();
  }

  async #stop(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.#opts.onError?.(new Error('Countersign did not stop in time; quitting anyway.'));
        resolve();
      }, this.#opts.timeoutMs ?? 10_000);
    });
    try {
      await Promise.race([this.#opts.stop(), timeout]);
    } catch (error) {
      this.#opts.onError?.(error);
    } finally {
      clearTimeout(timer);
    }
    this.#phase = 'stopped';
    this.#opts.quitAgain();
  }
}
