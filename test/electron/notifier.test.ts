import { describe, expect, it, vi } from 'vitest';
import { notificationContent, Notifier, type NotificationLike } from '../../electron/main/notifier.js';
import { FakeApi, pendingCall } from './fakes.js';

class FakeNotification implements NotificationLike {
  shown = false;
  closed = false;
  click?: () => void;
  constructor(readonly content: { title: string; body: string }) {}
  show(): void {
    this.shown = true;
  }
  close(): void {
    this.closed = true;
  }
  on(_event: 'click', listener: () => void): this {
    this.click = listener;
    return this;
  }
}

function setup(opts: { enabled?: boolean; supported?: boolean } = {}) {
  const api = new FakeApi();
  const made: FakeNotification[] = [];
  const openCall = vi.fn();
  const settings = { enabled: opts.enabled ?? true };
  const notifier = new Notifier({
    api,
    create: (content) => {
      const n = new FakeNotification(content);
      made.push(n);
      return n;
    },
    enabled: () => settings.enabled,
    supported: () => opts.supported ?? true,
    openCall,
  });
  notifier.start();
  return { api, made, openCall, settings, notifier };
}

describe('notifications', () => {
  it('shows one notification per new pending call', () => {
    const { api, made } = setup();
    api.emit({ type: 'pending-added', call: pendingCall('c1') });
    api.emit({ type: 'pending-added', call: pendingCall('c2', { tool: 'delete_file' }) });
    api.emit({ type: 'pending-added', call: pendingCall('c1') });
    api.emit({ type: 'servers-changed' });
    expect(made).toHaveLength(2);
    expect(made.every((n) => n.shown)).toBe(true);
    expect(made[1]!.content.title).toBe('Approve delete_file?');
  });

  it('clicking one opens that call', () => {
    const { api, made, openCall } = setup();
    api.emit({ type: 'pending-added', call: pendingCall('c1') });
    api.emit({ type: 'pending-added', call: pendingCall('c2') });
    made[1]!.click!();
    expect(openCall).toHaveBeenCalledWith('c2');
    expect(openCall).toHaveBeenCalledTimes(1);
  });

  it('shows nothing while the setting is off, and follows it at once', () => {
    const { api, made, settings } = setup({ enabled: false });
    api.emit({ type: 'pending-added', call: pendingCall('c1') });
    expect(made).toHaveLength(0);
    settings.enabled = true;
    api.emit({ type: 'pending-added', call: pendingCall('c2') });
    expect(made).toHaveLength(1);
  });

  it('shows nothing where the OS has no notifications', () => {
    const { api, made } = setup({ supported: false });
    api.emit({ type: 'pending-added', call: pendingCall('c1') });
    expect(made).toHaveLength(0);
  });

  it('takes a notification away when its call is decided or expires', () => {
    const { api, made, notifier } = setup();
    api.emit({ type: 'pending-added', call: pendingCall('c1') });
    api.emit({ type: 'pending-removed', id: 'c1', why: 'timeout' });
    expect(made[0]!.closed).toBe(true);
    expect(notifier.showing).toBe(0);
  });

  it('clear() and stop() take every notification away', () => {
    const { api, made, notifier } = setup();
    api.emit({ type: 'pending-added', call: pendingCall('c1') });
    api.emit({ type: 'pending-added', call: pendingCall('c2') });
    notifier.clear();
    expect(made.every((n) => n.closed)).toBe(true);
    api.emit({ type: 'pending-added', call: pendingCall('c3') });
    notifier.stop();
    expect(made[2]!.closed).toBe(true);
    expect(api.listeners.size).toBe(0);
  });

  it('writes server-supplied names as visible, short plain text, using the tool name not its title', () => {
    const content = notificationContent(
      pendingCall('c1', {
        tool: 'delete\u202eall',
        title: 'Read a file',
        server: 'fs',
        client: { name: 'x'.repeat(200), session: 's' },
        reasons: [{ code: 'destructive', severity: 'danger', message: 'Destructive call.' }],
      }),
    );
    expect(content.title).toBe('Approve delete\\u202eall?');
    expect(content.body).not.toContain('Read a file');
    expect(content.body).toContain('Says nothing about what it does');
    expect(content.body.length).toBeLessThan(300);
  });

  it('says what the card says first: an untrusted claim beside its default, a write before data leaving', () => {
    const claims = notificationContent(
      pendingCall('c1', {
        tool: 'delete_all',
        server: 'notes',
        arguments: {},
        reasons: [{ code: 'untrusted-server', severity: 'warning', message: 'x' }],
        hints: {
          readOnlyHint: true,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: false,
          supplied: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
        },
      }),
    );
    expect(claims.body).toBe(
      'Claude wants to run delete_all on notes. Treated as able to change or delete data. It says it only reads — not checked, because you have not trusted notes.',
    );
    const write = notificationContent(
      pendingCall('c2', {
        arguments: { path: '/tmp/out.txt', content: 'thirty bytes of plain content.' },
        reasons: [
          { code: 'exfiltration-risk', severity: 'danger', message: 'This session already read local data; this call can send data out of the machine.' },
        ],
        hints: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: false,
          supplied: { readOnlyHint: true, destructiveHint: true, idempotentHint: true, openWorldHint: true },
        },
        facts: { localReads: ['notes.md'], targets: [{ key: 'path', path: '/tmp/out.txt', role: 'write', exists: false }] },
      }),
    );
    expect(write.body).toBe('Claude wants to run write_file on fs. Creates out.txt (30 B).');
  });
});
