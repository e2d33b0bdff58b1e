import { describe, expect, it } from 'vitest';
import { fetchesPackage, slowStartCauses } from '../../electron/broker/doctor/slow-start.js';

const secret = 'http://ann:hunter2@proxy.corp:3128';

describe('what usually makes a start slow', () => {
  it('names npx downloading, the missing CA variable and the server itself, most likely first', () => {
    const causes = slowStartCauses('files', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] }, { PATH: '/bin' });
    expect(causes[0]).toMatch(/^npx downloads the package .* countersign servers pin files\)$/);
    expect(causes[1]).toMatch(/inspects TLS .* set NODE_EXTRA_CA_CERTS/);
    expect(causes.at(-1)).toMatch(/^the server itself/);
  });

  it('names a proxy by its variable, never its value, and says when the limits keep the variables from the server', () => {
    const env = { HTTPS_PROXY: secret, https_proxy: secret, NODE_EXTRA_CA_CERTS: '/etc/corp.pem' };
    const passed = slowStartCauses('s', { command: 'npx', args: ['pkg'] }, env);
    expect(passed.join('\n')).toContain('a proxy is set (HTTPS_PROXY, https_proxy)');
    expect(passed.join('\n')).not.toContain('NODE_EXTRA_CA_CERTS to your');
    const taken = slowStartCauses(
      's',
      { command: 'npx', args: ['pkg'], limits: { network: 'unrestricted', filesystem: 'host', passEnv: [], noPassEnv: ['*'] } },
      env,
    );
    expect(taken.join('\n')).toContain(
      'its limits keep NODE_EXTRA_CA_CERTS from it (--no-pass-env): give them back with countersign servers limits s --network-env',
    );
    expect(taken.join('\n')).toContain('its limits keep the proxy variables (HTTPS_PROXY, https_proxy) from it');
    for (const text of [...passed, ...taken]) expect(text).not.toContain('hunter2');
  });

  it('knows the package runners', () => {
    expect(['npx', 'npx.cmd', 'bunx', 'pnpx'].every((c) => fetchesPackage(c))).toBe(true);
    expect(fetchesPackage('npm', ['exec', 'pkg'])).toBe(true);
    expect(fetchesPackage('pnpm', ['dlx', 'pkg'])).toBe(true);
    expect(fetchesPackage('npm', ['run', 'x'])).toBe(false);
    expect(fetchesPackage('/usr/bin/node', ['server.js'])).toBe(false);
    expect(slowStartCauses('u', { command: 'uvx', args: ['mcp-server-git'] }, {})[0]).toMatch(/^uvx builds an environment/);
    expect(slowStartCauses('d', { command: 'docker', args: ['run', 'x'] }, {})[0]).toMatch(/^docker pulls the image/);
  });
});
