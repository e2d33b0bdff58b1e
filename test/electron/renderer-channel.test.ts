import { describe, expect, it } from 'vitest';
import { RendererChannel, type WebContentsLike } from '../../electron/main/renderer-channel.js';

class FakeWebContents implements WebContentsLike {
  readonly sent: Array<[string, unknown]> = [];
  destroyed = false;
  failSends = false;
  constructor(readonly id: number) {}
  send(channel: string, payload: unknown): void {
    if (this.failSends) throw new Error('Render frame was disposed');
    this.sent.push([channel, payload]);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

describe('messages to the renderer', () => {
  it('queues until the page says it is ready, then delivers in order', () => {
    const channel = new RendererChannel();
    const wc = new FakeWebContents(1);
    channel.attach(wc);
    channel.send('ev', 1);
    channel.send('open', 'c1');
    expect(wc.sent).toEqual([]);
    channel.ready(1);
    expect(wc.sent).toEqual([
      ['ev', 1],
      ['open', 'c1'],
    ]);
    channel.send('ev', 2);
    expect(wc.sent.at(-1)).toEqual(['ev', 2]);
    expect(channel.queued).toBe(0);
  });

  it('queues messages sent before there is any window', () => {
    const channel = new RendererChannel();
    channel.send('open', 'early');
    const wc = new FakeWebContents(1);
    channel.attach(wc);
    channel.ready(1);
    expect(wc.sent).toEqual([['open', 'early']]);
  });

  it('ignores ready from another webContents', () => {
    const channel = new RendererChannel();
    const wc = new FakeWebContents(1);
    channel.attach(wc);
    channel.send('ev', 1);
    channel.ready(2);
    expect(wc.sent).toEqual([]);
    expect(channel.isReady).toBe(false);
  });

  it('queues again after a reload until the new page is ready', () => {
    const channel = new RendererChannel();
    const wc = new FakeWebContents(1);
    channel.attach(wc);
    channel.ready(1);
    channel.markNotReady();
    channel.send('ev', 'during reload');
    expect(wc.sent).toEqual([]);
    channel.ready(1);
    expect(wc.sent).toEqual([['ev', 'during reload']]);
  });

  it('a new window starts not ready', () => {
    const channel = new RendererChannel();
    channel.attach(new FakeWebContents(1));
    channel.ready(1);
    const second = new FakeWebContents(2);
    channel.attach(second);
    channel.send('ev', 1);
    expect(second.sent).toEqual([]);
    channel.ready(2);
    expect(second.sent).toEqual([['ev', 1]]);
  });

  it('keeps a message whose send failed for the next ready page', () => {
    const channel = new RendererChannel();
    const wc = new FakeWebContents(1);
    channel.attach(wc);
    channel.ready(1);
    wc.failSends = true;
    channel.send('ev', 'lost?');
    expect(channel.isReady).toBe(false);
    wc.failSends = false;
    channel.ready(1);
    expect(wc.sent).toEqual([['ev', 'lost?']]);
  });

  it('does not send to a destroyed webContents', () => {
    const channel = new RendererChannel();
    const wc = new FakeWebContents(1);
    channel.attach(wc);
    channel.ready(1);
    wc.destroyed = true;
    channel.send('ev', 1);
    expect(wc.sent).toEqual([]);
    expect(channel.queued).toBe(1);
  });

  it('bounds the queue, dropping the oldest', () => {
    const channel = new RendererChannel({ maxQueued: 3 });
    for (let i = 0; i < 5; i++) channel.send('ev', i);
    const wc = new FakeWebContents(1);
    channel.attach(wc);
    channel.ready(1);
    expect(wc.sent.map(([, p]) => p)).toEqual([2, 3, 4]);
  });
});
