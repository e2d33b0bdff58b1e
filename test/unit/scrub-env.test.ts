import { describe, expect, it } from 'vitest';
import { scrubbedEnv } from '../../electron/broker/upstream/scrub-env.js';

describe('scrubbedEnv', () => {
  it('keeps only the essentials plus configured variables', () => {
    const env = scrubbedEnv({ API_KEY: 'mine' }, { PATH: '/bin', HOME: '/h', AWS_SECRET_ACCESS_KEY: 'x', GITHUB_TOKEN: 'y', LANG: 'C' }, 'linux');
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', LANG: 'C', API_KEY: 'mine' });
  });

  it('matches Windows names case-insensitively and keeps SystemRoot', () => {
    const env = scrubbedEnv(undefined, { Path: 'C:\\w', SystemRoot: 'C:\\Windows', SECRET: 's' }, 'win32');
    expect(env).toEqual({ Path: 'C:\\w', SystemRoot: 'C:\\Windows' });
  });

  it('lets configured values override inherited ones, and drops exported shell functions', () => {
    const env = scrubbedEnv({ PATH: '/only' }, { PATH: '/bin', SHELL: '() { :; }; echo pwned' }, 'linux');
    expect(env).toEqual({ PATH: '/only' });
  });
});

describe('the network variables', () => {
  const corporate = {
    PATH: '/bin',
    HOME: '/h',
    GITHUB_TOKEN: 'ghp',
    AWS_SECRET_ACCESS_KEY: 'x',
    NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem',
    SSL_CERT_FILE: '/etc/corp/ca.pem',
    SSL_CERT_DIR: '/etc/corp/certs',
    REQUESTS_CA_BUNDLE: '/etc/corp/ca.pem',
    CURL_CA_BUNDLE: '/etc/corp/ca.pem',
    HTTP_PROXY: 'http://u:p@proxy:3128',
    HTTPS_PROXY: 'http://u:p@proxy:3128',
    ALL_PROXY: 'socks5://proxy:1080',
    NO_PROXY: 'localhost,.corp',
    http_proxy: 'http://u:p@proxy:3128',
    https_proxy: 'http://u:p@proxy:3128',
    all_proxy: 'socks5://proxy:1080',
    no_proxy: 'localhost',
    npm_config_registry: 'https://npm.corp/',
    npm_config_cafile: '/etc/corp/ca.pem',
    NPM_CONFIG_REGISTRY: 'https://npm.corp/',
    NPM_CONFIG_CAFILE: '/etc/corp/ca.pem',
    PIP_INDEX_URL: 'https://pypi.corp/simple',
    PIP_CERT: '/etc/corp/ca.pem',
    UV_INDEX_URL: 'https://pypi.corp/simple',
    UV_DEFAULT_INDEX: 'https://pypi.corp/simple',
  };
  const network = Object.fromEntries(Object.entries(corporate).filter(([k]) => !['PATH', 'HOME', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY'].includes(k)));

  it('pass by default, in both cases, and secrets still do not', () => {
    expect(scrubbedEnv(undefined, corporate, 'linux')).toEqual({ PATH: '/bin', HOME: '/h', ...network });
  });

  it('--no-pass-env takes them all away (noPassEnv *), or some by name; passEnv gives one back', () => {
    expect(scrubbedEnv(undefined, corporate, 'linux', [], ['*'])).toEqual({ PATH: '/bin', HOME: '/h' });
    const noProxy = scrubbedEnv(undefined, corporate, 'linux', [], ['HTTPS_PROXY', 'https_proxy']);
    expect(noProxy).not.toHaveProperty('HTTPS_PROXY');
    expect(noProxy).not.toHaveProperty('https_proxy');
    expect(noProxy).toHaveProperty('HTTP_PROXY');
    expect(scrubbedEnv(undefined, corporate, 'linux', ['NODE_EXTRA_CA_CERTS'], ['*'])).toEqual({
      PATH: '/bin',
      HOME: '/h',
      NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem',
    });
  });

  it('match any case on Windows', () => {
    expect(scrubbedEnv(undefined, { Path: 'C:\\w', Https_Proxy: 'http://proxy', Node_Extra_CA_Certs: 'C:\\ca.pem', SECRET: 's' }, 'win32')).toEqual({
      Path: 'C:\\w',
      Https_Proxy: 'http://proxy',
      Node_Extra_CA_Certs: 'C:\\ca.pem',
    });
  });
});
