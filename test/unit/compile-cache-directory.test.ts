import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileCacheDirectory } from '../../src/compile-cache-directory';

const onPosix = process.platform === 'win32' ? describe.skip : describe;

onPosix("the compile cache's directory", () => {
  let cacheHome: string;
  beforeEach(() => {
    cacheHome = mkdtempSync(join(tmpdir(), 'compile-cache-'));
  });
  afterEach(() => rmSync(cacheHome, { recursive: true, force: true }));

  it("is made private in the user's cache directory", () => {
    const umask = process.umask(0o022);
    try {
      const directory = compileCacheDirectory({ XDG_CACHE_HOME: cacheHome });
      expect(directory).toBe(join(cacheHome, 'membership-directory', 'node-compile-cache'));
      expect(lstatSync(join(cacheHome, 'membership-directory')).mode & 0o777).toBe(0o700);
      expect(lstatSync(directory ?? '').mode & 0o777).toBe(0o700);
    } finally {
      process.umask(umask);
    }
  });

  it('is none when others could write or read in it', () => {
    mkdirSync(join(cacheHome, 'membership-directory', 'node-compile-cache'), { recursive: true });
    chmodSync(join(cacheHome, 'membership-directory', 'node-compile-cache'), 0o777);
    expect(compileCacheDirectory({ XDG_CACHE_HOME: cacheHome })).toBeUndefined();

    chmodSync(join(cacheHome, 'membership-directory', 'node-compile-cache'), 0o700);
    chmodSync(join(cacheHome, 'membership-directory'), 0o755);
    expect(compileCacheDirectory({ XDG_CACHE_HOME: cacheHome })).toBeUndefined();
  });

  it('is none when a link points it elsewhere, or it cannot be made', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'compile-cache-elsewhere-'));
    try {
      chmodSync(elsewhere, 0o700);
      symlinkSync(elsewhere, join(cacheHome, 'membership-directory'));
      expect(compileCacheDirectory({ XDG_CACHE_HOME: cacheHome })).toBeUndefined();
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    expect(compileCacheDirectory({ XDG_CACHE_HOME: '/dev/null/cache' })).toBeUndefined();
  });
});
