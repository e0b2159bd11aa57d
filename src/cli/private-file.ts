import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { CliFailure } from './cli-errors';
import { describeFileError } from './commands/file-errors';

/**
 * Writes FILE through `write`, the way every file of the tool is written (SPEC §5): into a new file
 * beside it, under a name nobody can guess, created exclusively (`wx`: never an existing file or a
 * link planted under that name), readable by its owner alone (0600, whatever the umask), and renamed
 * into place only when complete. An interrupted write leaves nothing under FILE's name.
 */
export async function writePrivateFile<T>(file: string, write: (out: Writable) => Promise<T>): Promise<T> {
  const partial = join(dirname(file), `.${basename(file)}.partial-${randomBytes(9).toString('base64url')}`);
  let created = false;
  try {
    const handle = await open(partial, 'wx', 0o600);
    created = true;
    // The umask may have taken bits from the mode asked for; the file is exactly 0600.
    await handle.chmod(0o600);
    const stream = handle.createWriteStream();
    let result: T;
    try {
      result = await write(stream);
      stream.end();
      await finished(stream);
    } catch (error) {
      stream.destroy();
      throw error;
    }
    await rename(partial, file);
    created = false;
    return result;
  } catch (error) {
    if (created) await rm(partial, { force: true });
    // A file system error names its syscall; those of the database or the use case do not.
    if (typeof error === 'object' && error !== null && 'syscall' in error)
      throw new CliFailure(describeFileError(error, file, 'write'));
    throw error;
  }
}
