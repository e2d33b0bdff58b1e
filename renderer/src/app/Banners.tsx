// Page-wide states: the event stream is down, the broker is paused, or it reported problems.
import { useEffect, useState } from 'react';
import type { ConnectionSource, ConnectionState } from '../bridge/connection';
import { useApp } from '../store/context';
import { VisibleText } from '../ui/VisibleText';

export function useConnectionState(source?: ConnectionSource): ConnectionState {
  const [state, setState] = useState<ConnectionState>(source?.state() ?? 'live');
  useEffect(() => {
    if (!source) return;
    setState(source.state());
    return source.onChange(setState);
  }, [source]);
  return state;
}

export function Banners({ connection }: { connection: ConnectionState }) {
  const status = useApp((s) => s.status);
  return (
    <div className="banners">
      {connection === 'reconnecting' && (
        <div className="banner banner-warning" role="alert">
          Lost contact with the broker. Reconnecting… Calls keep waiting meanwhile.
        </div>
      )}
      {connection === 'unauthorized' && (
        <div className="banner banner-danger" role="alert">
          This page’s access token is no longer valid (the broker restarted?). Open the address that <code>countersign serve</code> printed.
        </div>
      )}
      {status?.paused && (
        <div className="banner banner-warning" role="status">
          Paused: every call is denied (the client is told Countersign is paused) until you resume.
        </div>
      )}
      {(status?.warnings ?? []).map((w, i) => (
        <div className="banner banner-warning" key={i}>
          <VisibleText text={w} />
        </div>
      ))}
    </div>
  );
}
