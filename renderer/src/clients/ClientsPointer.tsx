// On the empty queue: which clients were found and how many of their servers still start without
// Countersign, and the way to the Clients view, where wrapping them is one reviewed step.
import { useNavigate } from '../app/navigation';
import { count } from '../lib/format';
import { useClients } from './useClients';

export function ClientsPointer() {
  const navigate = useNavigate();
  const { clients, unsupported } = useClients();
  if (unsupported) return null;
  const found = (clients ?? []).filter((c) => c.found);
  const servers = found.flatMap((c) => c.files.flatMap((f) => f.servers));
  const open = servers.filter((s) => s.state === 'direct').length;
  return (
    <section className="help" aria-labelledby="clients-pointer">
      <h2 id="clients-pointer">Protect the clients you already use</h2>
      <p>
        {!clients
          ? 'Looking for MCP clients on this machine…'
          : !found.length
            ? 'No MCP client config was found on this machine yet.'
            : `Found ${found.map((c) => c.name).join(', ')}: ${open ? `${count(open, 'server')} ${open === 1 ? 'starts' : 'start'} without Countersign.` : 'every server Countersign can wrap goes through it.'}`}
      </p>
      <p className="muted small">
        Countersign changes a client’s config so its servers start through Countersign. You see each change before it is written, and can undo it.
      </p>
      <button type="button" className="btn btn-primary" onClick={() => navigate('clients')}>
        Open Clients
      </button>
    </section>
  );
}
