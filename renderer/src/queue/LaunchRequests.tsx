// Servers a client tried to start whose command waits for the person: a queue item of its own kind,
// "needs your approval to start", one per server and command however often the client retried. Approve
// is the Servers screen's own approveLaunch, bound to the command shown (the broker refuses a command
// that changed since). The client gave up when it was refused, so the person restarts the server there.
import type { LaunchRequest } from '../../../shared/api';
import { count, dateTime } from '../lib/format';
import { useActions, useApi, useApp } from '../store/context';
import { CommandLine } from '../ui/CommandLine';
import { LaunchLimits, LaunchPlace } from '../ui/LaunchPlace';
import { VisibleText } from '../ui/VisibleText';

function where(request: LaunchRequest): string {
  return request.clients.length ? request.clients.join(', ') : 'your MCP client';
}

function LaunchItem({ request }: { request: LaunchRequest }) {
  const api = useApi();
  const { run, notify, refreshServers, refreshLaunches } = useActions();
  const { launch, server } = request;
  const approve = async () => {
    const done = await run('approveLaunch', () => api.approveLaunch(server, launch.hash).then(() => true));
    if (!done) return;
    notify('info', `Approved. Restart '${server}' in ${where(request)} so it starts: the client stopped trying when it was refused.`);
    await Promise.all([refreshLaunches(), refreshServers()]);
  };
  return (
    <li className="launch-request block block-attention" aria-labelledby={`launch-request-${server}`}>
      <p className="launch-request-head">
        <span className="badge badge-danger">Needs your approval to start</span>{' '}
        <strong id={`launch-request-${server}`}>
          <VisibleText text={server} />
        </strong>
      </p>
      <p className="small">
        A client tried to start it {count(request.attempts, 'time')} (last {dateTime(new Date(request.lastAt).toISOString())}
        {request.clients.length > 0 && (
          <>
            , by <VisibleText text={request.clients.join(', ')} />
          </>
        )}
        ), but <VisibleText text={request.reason} />, so it did not start. Read every argument: this is exactly what will run.
      </p>
      {launch.commandLine && <CommandLine argv={launch.commandLine} label={`Command line of ${server}, one argument per item`} />}
      <LaunchPlace url={launch.url} cwd={launch.cwd} />
      {launch.envNames.length > 0 && (
        <p className="small">
          Environment variables (names only):{' '}
          {launch.envNames.map((n, i) => (
            <code key={i} className="name-chip">
              <VisibleText text={n} />
            </code>
          ))}
        </p>
      )}
      {launch.commandLine && <LaunchLimits limits={launch.limits} />}
      <button type="button" className="btn btn-primary" onClick={() => void approve()}>
        Approve command
      </button>
      <p className="muted small">
        After approving, restart <VisibleText text={server} /> in <VisibleText text={where(request)} />: it stopped trying when it was refused.
      </p>
    </li>
  );
}

export function LaunchRequests() {
  const launches = useApp((s) => s.launches);
  if (launches.length === 0) return null;
  return (
    <section aria-label="Servers waiting for your approval to start">
      <ul className="launch-requests">
        {launches.map((r) => (
          <LaunchItem key={`${r.server}-${r.launch.hash}`} request={r} />
        ))}
      </ul>
    </section>
  );
}
