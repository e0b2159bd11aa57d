/**
 * How every CSV the project writes spells its cells (SPEC §9): the export, the mail merge's list,
 * and the desk's downloads, which import this file too (it imports nothing, so it runs in the
 * browser as well as in Node).
 *
 * RFC 4180 asks for quotes around a cell holding the delimiter, a quote, CR or LF. Every one of
 * them is named here on its own: a lone LF (a two-line address) split rows in spreadsheet programs
 * when only CR LF was looked for, and `;` is quoted too because spreadsheet programs set to a
 * decimal comma take it as the delimiter, as the import itself does when the header says so.
 */
const NEEDS_QUOTES = /[",;\r\n]/;

/** The byte order mark a written CSV starts with: by it, spreadsheet programs read UTF-8, accents included. */
export const CSV_BYTE_ORDER_MARK = '\ufeff';

/** One cell: as it is, or quoted with its quotes doubled. An empty cell is null or ''. */
export function csvCell(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, ended by CR LF as RFC 4180 ends them. */
export function csvLine(cells: readonly (string | number | null)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
