import { describe, expect, it } from 'vitest';
import { scrubbedEnv } from '../../electron/broker/scrub-env.js';

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
