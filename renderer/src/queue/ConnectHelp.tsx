// How to point a client at Countersign: the connect command for stdio clients, the URL for HTTP ones.
import { useApp } from '../store/context';
import { CopyText } from '../ui/CopyText';

export function ConnectHelp() {
  const status = useApp((s) => s.status);
  const servers = useApp((s) => s.servers) ?? [];
  const example = servers[0]?.name ?? '<server>';
  const connect = (status?.connectCommand ?? 'npx countersign connect <server>').replace('<server>', example);
  const url = status?.mcpUrlTemplate?.replace('<server>', example);
  const config = JSON.stringify({ mcpServers: { [example]: { command: 'npx', args: connect.split(' ').slice(1) } } }, null, 2);
  return (
    <section className="help" aria-labelledby="connect-help">
      <h2 id="connect-help">Point a client at it</h2>
      <h3>Clients that start servers (stdio): Claude Desktop, Cursor, VS Code</h3>
      <p>Use this command in place of the server’s own command:</p>
      <CopyText text={connect} label="Connect command" />
      <details className="snippet">
        <summary>Example client configuration</summary>
        <pre>{config}</pre>
      </details>
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
    </section>
  );
}
