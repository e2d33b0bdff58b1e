// Limits this machine cannot enforce: the server does not start (fail closed). Says why and the fix,
// and offers the person's own way out, bound to the launch on screen: run it without its limits.
import type { ServerLimitsView } from '../../../shared/api';
import { useApi, useActions } from '../store/context';
import type { UiServer } from '../store/normalize';
import { VisibleText } from '../ui/VisibleText';

export function UnenforcedLimits({ server, unenforced }: { server: UiServer; unenforced: NonNullable<ServerLimitsView['unenforced']> }) {
  const api = useApi();
  const { run, refreshServers } = useActions();
  const hash = server.launch?.hash;
  const set = (allowed: boolean) =>
    void run('setRunWithoutLimits', () =>
      allowed && hash ? api.setRunWithoutLimits(server.name, true, hash) : api.setRunWithoutLimits(server.name, false),
    ).then(() => refreshServers());
  return (
    <div className="banner" role="alert">
      <p className="small">
        <strong>{unenforced.runsWithoutLimits ? 'Runs WITHOUT its limits here, as you allowed' : 'Does not start on this machine'}:</strong> its limits cannot
        be enforced (<VisibleText text={unenforced.reason} />
        ).
      </p>
      {unenforced.fix && (
        <p className="small">
          Fix: <VisibleText text={unenforced.fix} />
        </p>
      )}
      {unenforced.runsWithoutLimits ? (
        <button type="button" className="btn" onClick={() => set(false)}>
          Require its limits again
        </button>
      ) : (
        <>
          <p className="small muted">Or let it run without them: it then reaches your files and the network as you do, and sees Countersign’s own files.</p>
          <button type="button" className="btn" disabled={!hash} onClick={() => set(true)}>
            Run without its limits
          </button>
        </>
      )}
    </div>
  );
}
