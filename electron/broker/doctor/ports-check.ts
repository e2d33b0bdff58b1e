// The port the broker's UI and HTTP MCP endpoint listen on, and who holds it.
import type { DoctorFinding } from '../../../shared/doctor.js';
import { describeHolder, portHolder } from '../explain/port-holder.js';

export function portFindings(httpUrl: string | undefined, brokerPid: number | undefined): DoctorFinding[] {
  const area = 'ports' as const;
  if (!httpUrl) {
    return [
      {
        area,
        code: 'ports.none',
        level: 'ok',
        summary: 'No broker listens here, so this Countersign holds no port: countersign serve takes a free one unless told --port N.',
      },
    ];
  }
  const url = new URL(httpUrl);
  const port = Number(url.port);
  const holder = portHolder(port);
  if (holder?.pid !== undefined && brokerPid !== undefined && holder.pid !== brokerPid) {
    return [
      {
        area,
        code: 'ports.other-holder',
        level: 'warning',
        summary: `The broker's port ${port} is also held by ${describeHolder(holder)}.`,
        fix: 'stop that process, or restart the broker on another port: countersign serve --port 0',
        subject: { port, pid: holder.pid },
      },
    ];
  }
  return [
    {
      area,
      code: 'ports.ok',
      level: 'ok',
      summary: `The UI and HTTP MCP endpoint listen on ${url.host} (loopback only${url.hostname === '127.0.0.1' || url.hostname === '[::1]' ? '' : ': NOT, it was told another address'}).`,
      subject: { port },
    },
  ];
}
