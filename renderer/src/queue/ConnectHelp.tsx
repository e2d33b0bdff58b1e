// Setting a client up by hand, for clients Countersign does not know: the connect command for stdio
// clients, the URL for HTTP ones. Known clients are wrapped in the Clients view instead.
import { useApp } from '../store/context';
import { CopyText } from '../ui/CopyText';

export function ConnectHelp() {
  const status = useApp((s) => s.status);
  const servers = useApp((s) => s.servers) ?? [];
  const example = servers[0]?.name ?? '<server>';
  const connect = status?.connectCommand?.replace('<server>', example);
  const url = status?.mcpUrlTemplate?.replace('<server>', example);
  if (!connect && !url) return null;
  return (
    <details className="snippet help" aria-labelledby="connect-help">
      <summary id="connect-help">Set up another client by hand</summary>
      {connect && (
        <>
          <h3>Clients that start servers (stdio)</h3>
          <p>In the client’s config, use this command in place of the server’s own:</p>
          <CopyText text={connect} label="Connect command" />
        </>
      )}
      {url && (
        <>
          <h3>HTTP clients</h3>
          <p>Use this address, with <code>Authorization: Bearer</code> and the token in <code>mcp-token</code> in the data folder{status?.dataDir ? ` (${status.dataDir})` : ''}:</p>
          <CopyText text={url} label="MCP URL" />
        </>
      )}
      {servers.length > 1 && (
        <p className="muted small">Configured servers: {servers.map((s) => s.name).join(', ')}. Replace <code>{example}</code> with the one you want.</p>
      )}
    </details>
  );
}
