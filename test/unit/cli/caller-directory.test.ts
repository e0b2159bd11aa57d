import { callerDirectory } from '../../../src/cli/caller-directory';

describe('callerDirectory', () => {
  it('is where the user ran `npm run cli`, which npm gives in INIT_CWD', () => {
    expect(callerDirectory({ npm_lifecycle_event: 'cli', INIT_CWD: '/home/ada/lists' }, '/srv/app')).toBe(
      '/home/ada/lists',
    );
  });

  it('is the working directory when the tool runs on its own, or under another npm script', () => {
    expect(callerDirectory({}, '/srv/app')).toBe('/srv/app');
    expect(callerDirectory({ npm_lifecycle_event: 'test', INIT_CWD: '/elsewhere' }, '/srv/app')).toBe(
      '/srv/app',
    );
    expect(callerDirectory({ npm_lifecycle_event: 'cli', INIT_CWD: ' ' }, '/srv/app')).toBe('/srv/app');
  });
});
