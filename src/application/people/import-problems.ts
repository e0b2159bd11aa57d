import { InvalidInput } from '../../domain/errors';

/**
 * The most problems an import keeps the message of. Both its readers show fewer (an error body
 * holds at most 20 messages, SPEC §2; the command line lists 20), so a file with a million bad
 * records costs a count, not a million messages held and sorted on the event loop (issue 46).
 */
export const KEPT_PROBLEMS = 100;

/**
 * What a problem is about: the record itself (`invalid`), a person it names who is not there
 * (`unknown`), or a chat_id or member_number someone else holds (`taken`). An import refuses them
 * all alike; one record written over HTTP answers each as its own status (404, 409).
 */
export type ProblemKind = 'invalid' | 'unknown' | 'taken';

/** An import's failure: a bad input, with the kinds of problem it found. */
export class ImportRefused extends InvalidInput {
  constructor(
    messages: string[],
    total: number,
    readonly kinds: ReadonlySet<ProblemKind>,
  ) {
    super(messages, total);
  }
}

/**
 * The problems an import finds, in the order of the records they are about (a record's own in the
 * order found), whatever the order they were found in: only the first KEPT_PROBLEMS are kept, and
 * all of them counted.
 */
export class ImportProblems {
  private readonly kept: { index: number; message: string }[] = [];
  private readonly kinds = new Set<ProblemKind>();
  count = 0;

  add(index: number, message: string, kind: ProblemKind = 'invalid'): void {
    this.count += 1;
    this.kinds.add(kind);
    const kept = this.kept;
    if (kept.length === KEPT_PROBLEMS && index >= kept[kept.length - 1].index) return;
    // After every problem of the same record or an earlier one: stable.
    let at = kept.length;
    while (at > 0 && kept[at - 1].index > index) at -= 1;
    kept.splice(at, 0, { index, message });
    if (kept.length > KEPT_PROBLEMS) kept.pop();
  }

  /** The import's failure: the first messages, and how many problems there were in all. */
  toError(): ImportRefused {
    return new ImportRefused(
      this.kept.map((p) => p.message),
      this.count,
      this.kinds,
    );
  }
}
