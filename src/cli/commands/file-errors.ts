/** A file system error as one line a volunteer can act on. */
export function describeFileError(error: unknown, file: string, verb: 'read' | 'write'): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT'
      ? verb === 'read'
        ? 'no such file'
        : 'no such directory'
      : code === 'EISDIR'
        ? 'it is a directory'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'ENOSPC'
            ? 'the disk is full'
            : (error as Error).message;
  return `cannot ${verb} ${file}: ${reason}`;
}
