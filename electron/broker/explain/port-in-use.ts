// `serve --port N` on a port something else holds: who holds it, whether it is Countersign, and what to
// do, instead of a stack trace from listen().
import { describeHolder, portHolder, type PortHolder } from './port-holder.js';

export class PortInUseError extends Error {
  override name = 'PortInUseError';

  constructor(
    readonly host: string,
    readonly port: number,
    readonly holder: PortHolder | undefined,
  ) {
    super(portInUseText(host, port, holder));
  }
}

export function portInUseText(host: string, port: number, holder: PortHolder | undefined): string {
  const stop = holder?.pid !== undefined ? `stop it (kill ${holder.pid})` : 'stop what holds it';
  const other = `start on another port: countersign serve --port 0 (any free port) or --port <N>`;
  const fix = holder?.countersign ? `use that broker (its UI address was printed where it started), ${stop}, or ${other}` : `${other}, or ${stop}`;
  return `Port ${port} on ${host} is already in use by ${describeHolder(holder)}. Fix: ${fix}.`;
}

/** A privileged port (below 1024) without the right to bind it. */
export class PortDeniedError extends Error {
  override name = 'PortDeniedError';

  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(
      `This user may not listen on port ${port} on ${host} (ports below 1024 need extra rights). Fix: countersign serve --port 0 (any free port) or a port from 1024 up.`,
    );
  }
}

/** listen()'s error as a sentence with its fix, when it is one of these. */
export function explainListenError(err: unknown, host: string, port: number): Error | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return new PortInUseError(host, port, portHolder(port));
  if (code === 'EACCES' && port > 0 && port < 1024) return new PortDeniedError(host, port);
  return undefined;
}
