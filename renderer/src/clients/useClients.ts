// The MCP clients on this machine, as the broker sees them: loaded on demand and again whenever a
// client's config or the servers change. An older broker without the method is reported, not an error.
import { useEffect, useMemo, useState } from 'react';
import type { ClientView } from '../../../shared/clients';
import { errorText, isUnsupported } from '../bridge/api-error';
import { coalesce } from '../store/coalesce';
import { useApi } from '../store/context';

export interface ClientsState {
  clients?: ClientView[];
  error?: string;
  unsupported: boolean;
  reload(): Promise<void>;
}

export function useClients(project?: string): ClientsState {
  const api = useApi();
  const [clients, setClients] = useState<ClientView[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [unsupported, setUnsupported] = useState(false);
  // A burst of servers-changed events (sessions opening) reads the client files twice, not fifty times.
  const reload = useMemo(
    () =>
      coalesce(async () => {
        try {
          setClients(await api.listClients(project ? { project } : undefined));
          setError(undefined);
        } catch (err) {
          if (isUnsupported(err)) setUnsupported(true);
          else setError(errorText(err));
        }
      }),
    [api, project],
  );
  useEffect(() => {
    void reload();
    return api.subscribe((e) => {
      if (e.type === 'clients-changed' || e.type === 'servers-changed') void reload();
    });
  }, [api, reload]);
  return { clients, error, unsupported, reload };
}
