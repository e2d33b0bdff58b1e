// Teaches the two ways to add a first server: the CLI, or pasting an existing client's config.
import { CopyText } from '../ui/CopyText';
import { AddServerForm } from './AddServerForm';
import { ImportServers } from './ImportServers';

export function NoServers() {
  return (
    <div className="teach">
      <section>
        <h2>Add a server from a terminal</h2>
        <CopyText text="countersign servers add <name> -- <command> [args…]" label="Add server command" />
        <p className="muted small">
          For example: <code>countersign servers add fs -- npx -y @modelcontextprotocol/server-filesystem ~/projects</code>. For a remote server:{' '}
          <code>countersign servers add &lt;name&gt; --url https://…</code>. (The desktop app’s Settings install the <code>countersign</code> command; from a
          checkout, <code>npm link</code>.)
        </p>
      </section>
      <section>
        <h2>Or import from your client’s config</h2>
        <ImportServers />
      </section>
      <details className="snippet">
        <summary>Or fill in a form</summary>
        <AddServerForm />
      </details>
    </div>
  );
}
