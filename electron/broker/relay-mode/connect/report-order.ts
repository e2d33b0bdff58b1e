// "A crash loses nothing": the broker hears of a leased call before the server does. `connect` reports
// a leased call on the control socket in the same synchronous step as it decides it, and the server's
// socket is corked for each chunk the client sends, then uncorked only once the control socket has
// handed every report byte to the kernel. A `connect` killed with -9 at any point after a leased call
// was forwarded has thereby already reported it (the broker logs it, as not finished if need be).
// Reports made within one chunk go out in one write, and so do the calls.
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';

export interface Corkable {
  cork(): void;
  uncork(): void;
}

const NOTHING = Buffer.alloc(0);

export function reportsBeforeCalls(client: Readable, control: Socket, server: Corkable): void {
  let held = false;
  let waiting = false;
  const release = (): void => {
    if (!held) return;
    // Not all with the kernel yet (the broker is behind): the calls wait. (A closed control socket ends
    // the session anyway.) An empty write queued behind the reports calls back once they are all written.
    if (control.writableLength > 0 && !control.destroyed) {
      if (!waiting) {
        waiting = true;
        const again = (): void => {
          waiting = false;
          release();
        };
        // Ending, it takes no more writes: look again shortly (the session is closing anyway).
        if (control.writableEnded) setTimeout(again, 1);
        else control.write(NOTHING, again);
      }
      return;
    }
    held = false;
    server.uncork();
  };
  // Before the line transport reads the chunk, and after it has handled every line in it.
  client.prependListener('data', () => {
    control.cork();
    if (!held) server.cork();
    held = true;
  });
  client.on('data', () => {
    control.uncork();
    release();
  });
}
