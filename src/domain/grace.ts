import { foldCase } from './text';

/**
 * How many days after its end date a membership keeps its holder in good standing (SPEC §10):
 * `GRACE_DAYS` for every kind, or the kind's own number from `GRACE_DAYS_BY_KIND`. Kinds are
 * compared case-insensitively (Unicode full case folding, as everywhere), so `byKind` is keyed
 * by the folded kind.
 */
export interface Grace {
  readonly days: number;
  readonly byKind: ReadonlyMap<string, number>;
}

export const MAX_GRACE_DAYS = 366;

/** The grace of `GRACE_DAYS` and `GRACE_DAYS_BY_KIND` pairs (kinds as written; folded here). */
export function graceOf(days: number, byKind: readonly (readonly [string, number])[] = []): Grace {
  return { days, byKind: new Map(byKind.map(([kind, n]) => [foldCase(kind), n] as const)) };
}

export const NO_GRACE: Grace = graceOf(0);

/** The grace days of a membership of `kind`. */
export function graceDays(grace: Grace, kind: string | null): number {
  if (kind === null || grace.byKind.size === 0) return grace.days;
  return grace.byKind.get(foldCase(kind)) ?? grace.days;
}

const builtSql = new WeakMap<Grace, (kind: string) => string>();

/** graceDays in SQL: `kind` is an SQL text expression. Built once for each grace (see below). */
export function graceDaysSql(grace: Grace, kind: string): string {
  let build = builtSql.get(grace);
  if (build === undefined) {
    // Kinds given the default anyway need no case of their own.
    const special = [...grace.byKind].filter(([, n]) => n !== grace.days);
    build = special.length === 0 ? () => String(grace.days) : kindCaseSql(grace.days, special);
    builtSql.set(grace, build);
  }
  return build(kind);
}

/**
 * PostgreSQL before 18 cannot fold case as foldCase does (lower() keeps ß, and under the C locale
 * leaves every non-ASCII letter alone), and memberships store no folded kind. But only equality
 * with a few folded kinds is asked: mapping each character whose folding is made only of those
 * kinds' characters (translate() for one character, replace() for several), and leaving every
 * other character as it is, gives the folded kind exactly when it is one of them, and otherwise
 * text holding a character none of them holds. The characters' foldings are read off foldCase
 * itself, so the two spellings cannot disagree about a character.
 */
function kindCaseSql(days: number, special: [string, number][]): (kind: string) => string {
  const wanted = new Set<string>();
  for (const [kind] of special) for (const char of kind + kind.normalize('NFD')) wanted.add(char);
  let from = '';
  let to = '';
  const replaces: [string, string][] = [];
  // Every case mapping lies in the first two planes.
  for (let codePoint = 0; codePoint < 0x20000; codePoint++) {
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
    const char = String.fromCodePoint(codePoint);
    const folded = foldCase(char);
    if (folded === char || ![...folded].every((c) => wanted.has(c))) continue;
    if ([...folded].length === 1) {
      from += char;
      to += folded;
    } else replaces.push([char, folded]);
  }
  return (kind: string) => {
    // Kinds are stored in NFC (SPEC §1's text rules), as foldCase first makes its text.
    let sql = kind;
    if (from !== '') sql = `translate(${sql}, ${literal(from)}, ${literal(to)})`;
    for (const [char, folded] of replaces) sql = `replace(${sql}, ${literal(char)}, ${literal(folded)})`;
    const whens = special.map(([k, n]) => `WHEN ${literal(k)} THEN ${n}`).join(' ');
    return `(CASE normalize(${sql}, NFC) ${whens} ELSE ${days} END)`;
  };
}

/** An SQL string literal (standard_conforming_strings: only the quote is doubled). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
