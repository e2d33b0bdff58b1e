// What this server runs, exactly: the command line argument by argument (or the URL), the folder and
// the names of the environment variables. A new or changed command needs the person's consent.
import type { ServerConfig } from '../../../shared/api';
import { useApi, useActions } from '../store/context';
import type { UiServer } from '../store/normalize';
import { CommandLine } from '../ui/CommandLine';
import { LaunchLimits, LaunchPlace } from '../ui/LaunchPlace';
import { VisibleText } from '../ui/VisibleText';

function fromConfig(config: ServerConfig) {
  return 'url' in config
    ? { url: config.url, headerNames: Object.keys(config.headers ?? {}), envNames: [] as string[] }
    : { commandLine: [config.command, ...(config.args ?? [])], cwd: config.cwd, envNames: Object.keys(config.env ?? {}), headerNames: [] as string[] };
}

function Names({ names, what }: { names: string[]; what: string }) {
  if (names.length === 0) return null;
  return (
    <p className="small">
      {what} (names only; values are never shown):{' '}
      {names.map((n, i) => (
        <code key={i} className="name-chip">
          <VisibleText text={n} />
        </code>
      ))}
    </p>
  );
}

export function LaunchPanel({ server }: { server: UiServer }) {
  const api = useApi();
  const { run, refreshServers } = useActions();
  const launch = server.launch ?? { ...fromConfig(server.config), approved: undefined };
  // Placeholders the client fills at each start: each filled command line is approved from the queue,
  // where its real values show; the stored form (with the placeholders) never runs, so it has no Approve.
  const fills = 'command' in server.config ? (server.config.fills ?? []) : [];
  const needsConsent = fills.length === 0 && (server.status === 'needs-consent' || server.launch?.approved === false);

  return (
    <section className={`block ${needsConsent ? 'block-attention' : ''}`} aria-labelledby={`launch-${server.name}`}>
      <h3 id={`launch-${server.name}`}>{needsConsent ? 'Approve what this server runs' : 'What runs'}</h3>
      {needsConsent && (
        <p>
          This command is new or has changed, so it will not start until you approve it. Read every argument: this is exactly what will run on this machine.
        </p>
      )}
      {fills.length > 0 && (
        <p>
          The client fills{' '}
          {fills.map((n, i) => (
            <code key={i} className="name-chip">
              <VisibleText text={`\${${n}}`} />
            </code>
          ))}{' '}
          each time it starts this server. Each start with new values waits in the queue as &ldquo;needs your approval to start&rdquo;, showing the real command
          line; approving one replaces the one before.
        </p>
      )}
      {launch.commandLine && <CommandLine argv={launch.commandLine} label="Command line, one argument per item" />}
      <LaunchPlace url={launch.url} cwd={launch.cwd} />
      <Names names={launch.envNames ?? []} what="Environment variables" />
      {launch.commandLine && server.launch && <LaunchLimits limits={server.launch.limits} />}
      <Names names={launch.headerNames ?? []} what="Headers" />
      {needsConsent ? (
        // Bound to the command on screen: if it changed meanwhile, the broker refuses and nothing runs.
        <button
          type="button"
          className="btn btn-primary"
          disabled={!server.launch?.hash}
          onClick={() => void run('approveLaunch', () => api.approveLaunch(server.name, server.launch!.hash)).then(() => refreshServers())}
        >
          Approve command
        </button>
      ) : (
        server.launch?.approved && <p className="muted small">Approved{server.launch.approvedBy === 'policy' ? ' by the team policy' : ' by you'}.</p>
      )}
    </section>
  );
}
