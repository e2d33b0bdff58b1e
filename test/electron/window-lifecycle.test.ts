import { describe, expect, it, vi } from 'vitest';
import { QuitSequence } from '../../electron/main/quit-sequence.js';
import { handleCloseRequest, handleSecondInstance, revealWindow, type WindowLike } from '../../electron/main/window-lifecycle.js';
import { flush } from './fakes.js';

class FakeWindow implements WindowLike {
  visible = false;
  minimized = false;
  focused = false;
  destroyed = false;
  isDestroyed = () => this.destroyed;
  isMinimized = () => this.minimized;
  restore = () => void (this.minimized = false);
  show = () => void (this.visible = true);
  focus = () => void (this.focused = true);
  hide = () => {
    this.visible = false;
    this.focused = false;
  };
}

const closeEvent = () => ({
  prevented: false,
  preventDefault() {
    this.prevented = true;
  },
});

describe('window lifecycle', () => {
  it('closing the window hides it while the app lives in the tray', () => {
    const win = new FakeWindow();
    win.show();
    const event = closeEvent();
    expect(handleCloseRequest(event, win, false)).toBe('hidden');
    expect(event.prevented).toBe(true);
    expect(win.visible).toBe(false);
  });

  it('closing while quitting really closes', () => {
    const win = new FakeWindow();
    const event = closeEvent();
    expect(handleCloseRequest(event, win, true)).toBe('closing');
    expect(event.prevented).toBe(false);
  });

  it('a second launch restores, shows and focuses the first window', () => {
    const win = new FakeWindow();
    win.minimized = true;
    const create = vi.fn();
    handleSecondInstance(() => win, create);
    expect(win).toMatchObject({ minimized: false, visible: true, focused: true });
    expect(create).not.toHaveBeenCalled();
  });

  it('a second launch makes a window when there is none (or it was destroyed)', () => {
    const create = vi.fn();
    handleSecondInstance(() => undefined, create);
    const dead = new FakeWindow();
    dead.destroyed = true;
    handleSecondInstance(() => dead, create);
    expect(create).toHaveBeenCalledTimes(2);
    expect(revealWindow(dead)).toBe(false);
  });
});

describe('quit sequence', () => {
  it('holds the first quit until the broker has stopped, then quits again', async () => {
    let finishStop!: () => void;
    const stop = vi.fn(() => new Promise<void>((r) => (finishStop = r)));
    const quitAgain = vi.fn();
    const quit = new QuitSequence({ stop, quitAgain });
    expect(quit.quitting).toBe(false);
    const first = closeEvent();
    quit.onBeforeQuit(first);
    expect(first.prevented).toBe(true);
    expect(quit.quitting).toBe(true);
    // A second Quit click while stopping does not stop twice.
    const second = closeEvent();
    quit.onBeforeQuit(second);
    expect(second.prevented).toBe(true);
    expect(stop).toHaveBeenCalledTimes(1);
    expect(quitAgain).not.toHaveBeenCalled();
    finishStop();
    await flush();
    expect(quitAgain).toHaveBeenCalledTimes(1);
    const last = closeEvent();
    quit.onBeforeQuit(last);
    expect(last.prevented).toBe(false);
    expect(quit.stopped).toBe(true);
  });

  it('still quits when stopping fails', async () => {
    const onError = vi.fn();
    const quitAgain = vi.fn();
    const quit = new QuitSequence({ stop: async () => Promise.reject(new Error('boom')), quitAgain, onError });
    quit.onBeforeQuit(closeEvent());
    await flush();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'boom' }));
    expect(quitAgain).toHaveBeenCalled();
  });

  it('still quits when stopping hangs', async () => {
    vi.useFakeTimers();
    try {
      const quitAgain = vi.fn();
      const onError = vi.fn();
      const quit = new QuitSequence({ stop: () => new Promise(() => {}), quitAgain, timeoutMs: 5000, onError });
      quit.onBeforeQuit(closeEvent());
      await vi.advanceTimersByTimeAsync(4999);
      expect(quitAgain).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(quitAgain).toHaveBeenCalled();
      expect(onError.mock.calls[0]![0].message).toMatch(/did not stop in time/);
    } finally {
      vi.useRealTimers();
    }
  });
});
