// Messages from main to the page. Until the page says it is listening (the renderer-ready invoke),
// they wait in a bounded queue, so an event or a notification click during start-up or a reload is
// not lost. A reload makes the page "not ready" again.

/** The part of Electron's WebContents used to send. */
export interface WebContentsLike {
  readonly id: number;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
}

interface Message {
  channel: string;
  payload: unknown;
}

export class RendererChannel {
  #target?: WebContentsLike;
  #ready = false;
  #queue: Message[] = [];
  readonly #maxQueued: number;

  constructor(opts: { maxQueued?: number } = {}) {
    this.#maxQueued = opts.maxQueued ?? 1000;
  }

  get isReady(): boolean {
    return this.#ready;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** A new window (or its page is loading again): hold messages until it is ready. */
  attach(target: WebContentsLike): void {
    this.#target = target;
    this.#ready = false;
  }

  /** The page is navigating, reloading or crashed. */
  markNotReady(): void {
    this.#ready = false;
  }

  /** From the gatekeeper's renderer-ready handler, with the sender's webContents id. */
  ready(webContentsId: number): void {
    const target = this.#target;
    if (!target || target.id !== webContentsId || target.isDestroyed()) return;
    this.#ready = true;
    const queued = this.#queue;
    this.#queue = [];
    for (const message of queued) this.#deliver(target, message);
  }

  send(channel: string, payload: unknown): void {
    const target = this.#target;
    const message = { channel, payload };
    if (this.#ready && target && !target.isDestroyed()) {
      this.#deliver(target, message);
      return;
    }
    this.#queue.push(message);
    // Oldest first: a UI reloads its state when it starts, so old events matter least.
    if (this.#queue.length > this.#maxQueued) this.#queue.splice(0, this.#queue.length - this.#maxQueued);
  }

  #deliver(target: WebContentsLike, message: Message): void {
    try {
      target.send(message.channel, message.payload);
    } catch {
      // The page went away between the check and the send: keep it for the next ready.
      this.#ready = false;
      this.#queue.push(message);
    }
  }
}
