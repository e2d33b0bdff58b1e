// Setting a client up by hand, for clients Countersign does not know: the exact entry for stdio clients
// (an absolute command, never a registry name), the URL for HTTP ones. Known clients are wrapped in the
// Clients view instead.
import { useApp } from '../store/context';
import { CopyText } from '../ui/CopyText';

const PLACEHOLDER = '<server>';

export function ConnectHelp() {
  const status = useApp((s) => s.status);
  const servers = useApp((s) => s.servers) ?? [];
  const example = servers[0]?.name ?? PLACEHOLDER;
  const launch = status?.connectLaunch;
  const connect = status?.connectCommand?.replace(PLACEHOLDER, example);
  const url = status?.mcpUrlTemplate?.replace(PLACEHOLDER, example);
  const entry = launch && JSON.stringify({ [example]: { command: launch.command, args: launch.args.map((a) => (a === PLACEHOLDER ? example : a)) } }, null, 2);
  if (!connect && !url) return null;
  return (
    <details className="snippet help" aria-labelledby="connect-help">
      <summary id="connect-help">Set up another client by hand</summary>
      {entry && connect && (
        <>
          <h3>Clients that start servers (stdio)</h3>
          <p>
            Replace the server’s entry in the client’s configuration (under <code>mcpServers</code>, or <code>servers</code> in VS Code) with:
          </p>
          <pre aria-label="Client entry">{entry}</pre>
          <p className="muted small">
            The command is an absolute path, so the client never looks a name up in a package registry. The same command for a terminal:
          </p>
          <CopyText text={connect} label="Connect command" />
          {launch.note && (
            <p className="muted small" role="note">
              {launch.note}
            </p>
          )}
        </>
      )}
      {url && (
        <>
          <h3>HTTP clients</h3>
          <p>
            Use this address, with <code>Authorization: Bearer</code> and the token in <code>mcp-token</code> in the data folder
            {status?.dataDir ? ` (${status.dataDir})` : ''}. Add <code>?client=&lt;name&gt;</code> so that all of one client’s servers share what it has read:
          </p>
          <CopyText text={url} label="MCP URL" />
        </>
      )}
      {servers.length > 1 && (
        <p className="muted small">
          Configured servers: {servers.map((s) => s.name).join(', ')}. Replace <code>{example}</code> with the one you want.
        </p>
      )}
    </details>
  );
}
