import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePrivateFile } from '../../../src/cli/private-file';
import { writeText } from '../../../src/cli/write-text';

describe('writePrivateFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'md-private-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a new file readable by its owner alone, whatever the umask', async () => {
    const previous = process.umask(0);
    try {
      await writePrivateFile(join(dir, 'out.json'), (out) => writeText(out, 'hello'));
    } finally {
      process.umask(previous);
    }
    const stat = lstatSync(join(dir, 'out.json'));
    expect(stat.isFile()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe('hello');
    expect(readdirSync(dir)).toEqual(['out.json']);
  });

  it('replaces a link planted under the name instead of writing through it', async () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched', { mode: 0o666 });
    symlinkSync(victim, join(dir, 'out.json'));
    await writePrivateFile(join(dir, 'out.json'), (out) => writeText(out, 'members'));
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(join(dir, 'out.json')).isSymbolicLink()).toBe(false);
    expect(lstatSync(join(dir, 'out.json')).mode & 0o777).toBe(0o600);
  });

  it('writes under a name no other user can plant in advance: never the pid-named partial of old', async () => {
    // The old partial name was predictable; a file planted there must stay as it was.
    const planted = join(dir, `out.json.partial-${process.pid}`);
    writeFileSync(planted, 'planted', { mode: 0o666 });
    const seen: string[] = [];
    await writePrivateFile(join(dir, 'out.json'), async (out) => {
      seen.push(...readdirSync(dir));
      await writeText(out, 'members');
    });
    expect(readFileSync(planted, 'utf8')).toBe('planted');
    const partials = seen.filter((name) => name !== `out.json.partial-${process.pid}`);
    expect(partials).toHaveLength(1);
    expect(partials[0]).toMatch(/^\.out\.json\.partial-[A-Za-z0-9_-]{12}$/);
  });

  it('leaves nothing behind, and the old file in place, when the writer fails', async () => {
    writeFileSync(join(dir, 'out.json'), 'previous');
    await expect(
      writePrivateFile(join(dir, 'out.json'), async (out) => {
        await writeText(out, 'half');
        throw new Error('the database went away');
      }),
    ).rejects.toThrow('the database went away');
    expect(readdirSync(dir)).toEqual(['out.json']);
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe('previous');
  });
});
