/** The command line was wrong: an unknown command or option, a missing argument. Exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose --help would have helped, e.g. "accounts create"; empty for the tool. */
    readonly command = '',
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An expected failure the tool explains in a line, with optional detail lines. Exit code 1. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}
