import { createReadStream } from 'node:fs';
import type { ByteSource } from '../person-file/read-json-array';
import { CliFailure } from './cli-errors';
import { describeFileError } from './commands/file-errors';

/** A file, read once, in chunks; a failure to open or read it is the command line's to explain. */
export function fileSource(file: string, chunkBytes = 1024 * 1024): ByteSource {
  return {
    name: file,
    chunks: async function* () {
      try {
        for await (const chunk of createReadStream(file, { highWaterMark: chunkBytes }))
          yield chunk as Buffer;
      } catch (error) {
        throw new CliFailure(describeFileError(error, file, 'read'));
      }
    },
  };
}
