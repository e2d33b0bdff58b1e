import { describe, expect, it } from 'vitest';
import { intFlag, keyValues, parseArgs, UsageError } from '../../electron/cli/args.js';

describe('parseArgs', () => {
  it('keeps everything after -- verbatim, including flags', () => {
    const a = parseArgs(['fs', '--env', 'A=1', '--env=B=2', '--', 'npx', '--env', 'x'], { values: ['env'] });
    expect(a.positional).toEqual(['fs']);
    expect(keyValues(a, 'env')).toEqual({ A: '1', B: '2' });
    expect(a.rest).toEqual(['npx', '--env', 'x']);
  });

  it('refuses unknown options, missing values and bad numbers', () => {
    expect(() => parseArgs(['--nope'], {})).toThrow(UsageError);
    expect(() => parseArgs(['--port'], { values: ['port'] })).toThrow(/needs a value/);
    expect(() => intFlag(parseArgs(['--port', '70000'], { values: ['port'] }), 'port', 0, 65535)).toThrow(/0 to 65535/);
    expect(() => keyValues(parseArgs(['--env', 'novalue'], { values: ['env'] }), 'env')).toThrow(/KEY=VALUE/);
  });
});
