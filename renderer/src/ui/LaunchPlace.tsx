// Where a launch runs, as the queue's launch item and the Servers launch panel both show it: the URL of a
// remote server, the folder of a local one, and (for a local one) the limits it runs with.
import { summarizeLimits, type LimitsProfile } from '../../../shared/limits';
import { VisibleText } from './VisibleText';

export function LaunchPlace({ url, cwd }: { url?: string; cwd?: string }) {
  return (
    <>
      {url && (
        <p>
          URL:{' '}
          <code className="break">
            <VisibleText text={url} />
          </code>
        </p>
      )}
      {cwd && (
        <p className="small">
          In folder{' '}
          <code>
            <VisibleText text={cwd} />
          </code>
        </p>
      )}
    </>
  );
}

export function LaunchLimits({ limits }: { limits: LimitsProfile | undefined }) {
  return <p className="small">Limits: {limits ? <VisibleText text={summarizeLimits(limits)} /> : 'none (it reaches your files and the network as you do)'}</p>;
}
