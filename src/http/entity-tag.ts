/**
 * A person's entity tag: its version and the directory's date. The date is there because the
 * `current` flag of memberships changes at midnight without the person changing, and a client
 * revalidating with If-None-Match must then get the new representation.
 */
export function entityTag(version: number, today: string): string {
  return `"v${version}-${today.replaceAll('-', '')}"`;
}

const OUR_TAG = /^"v([1-9][0-9]{0,15})-([0-9]{8})"$/;

function listOf(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/** If-None-Match: weak comparison, so `W/"..."` matches too; `*` matches any existing person. */
export function noneMatch(header: string | undefined, current: string): boolean {
  if (header === undefined) return false;
  return listOf(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === current);
}

/**
 * The versions an If-Match header accepts: `undefined` for no header or `*` (any version will do).
 * A tag is compared by the version it names: If-Match guards against lost updates, and a tag
 * read on another day names the same stored person. A header we could not have sent — malformed,
 * weak, another format — can never match: it gives no versions, and the precondition fails once
 * the person is found (a missing person is 404 whatever the header says, RFC 9110 §13.2.1).
 */
export function versionsMatching(header: string | undefined): number[] | undefined {
  if (header === undefined) return undefined;
  const tags = listOf(header);
  if (tags.length === 1 && tags[0] === '*') return undefined;
  const versions = new Set<number>();
  for (const tag of tags) {
    const match = OUR_TAG.exec(tag);
    if (match !== null && Number.isSafeInteger(Number(match[1]))) versions.add(Number(match[1]));
  }
  return [...versions];
}
