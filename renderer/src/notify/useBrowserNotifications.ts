// In the browser UI: one notification per new waiting call while this tab is out of view, once the person
// allowed it. Clicking it brings the tab forward and opens that call; a decided call takes its own away.
import { useEffect } from 'react';
import type { CountersignApi } from '../../../shared/api';
import { notificationContent } from '../../../shared/notification-content';
import { showNotification, tabOutOfView, type ShownNotification } from './browser-notifications';

/** Open notifications kept to close them when their call leaves; the oldest go first past this. */
const MAX_KEPT = 50;

export function useBrowserNotifications(api: CountersignApi, enabled: boolean, openCall: (id: string) => void): void {
  useEffect(() => {
    if (!enabled) return;
    const shown = new Map<string, ShownNotification>();
    const close = (id: string) => {
      shown.get(id)?.close();
      shown.delete(id);
    };
    const off = api.subscribe((event) => {
      if (event.type === 'pending-added') {
        const { call } = event;
        if (shown.has(call.id) || !tabOutOfView()) return;
        const n = showNotification({ ...notificationContent(call), tag: `countersign-${call.id}` }, () => {
          shown.delete(call.id);
          openCall(call.id);
        });
        if (!n) return;
        shown.set(call.id, n);
        if (shown.size > MAX_KEPT) close(shown.keys().next().value!);
      } else if (event.type === 'pending-removed') close(event.id);
    });
    return () => {
      off();
      for (const id of [...shown.keys()]) close(id);
    };
  }, [api, enabled, openCall]);
}
