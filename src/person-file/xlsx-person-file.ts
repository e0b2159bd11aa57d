import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { IncomingRecord } from '../application/people/import-people';
import { InvalidInput } from '../domain/errors';
import { type ByteSource, UnreadableInput } from './read-json-array';
import { peopleFromRows, type SheetRow } from './sheet-rows';

/**
 * The people of an XLSX workbook (SPEC §9): its first sheet, read once with exceljs's streaming
 * reader, each cell turned into the text the CSV would hold, and then read exactly as a CSV's rows
 * are (sheet-rows.ts): the same columns by header name, the same rules, the same `row N, column C`
 * messages, rows numbered as the spreadsheet numbers them.
 */
export function xlsxPersonFile(source: ByteSource): AsyncIterable<IncomingRecord> {
  return peopleFromRows(source.name, xlsxRows(source));
}

async function* xlsxRows(source: ByteSource): AsyncIterable<SheetRow> {
  // A file that cannot be read is the source's to explain, not a spreadsheet's fault.
  let unreadable: { error: unknown } | undefined;
  const bytes = async function* () {
    try {
      yield* source.chunks();
    } catch (error) {
      unreadable = { error };
      throw error;
    }
  };
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(bytes()), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // The cells' formats are what tell a date from a number.
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let sheets = 0;
  let header: string[] = [];
  try {
    for await (const sheet of reader) {
      sheets += 1;
      // The first sheet is the roster; the others are read past (the file is read once, to its end).
      for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
        if (sheets > 1) continue;
        const values = (row.values as ExcelJS.CellValue[]).slice(1);
        const problems: string[] = [];
        const cells = Array.from(values, (value, i) => {
          const text = cellText(value);
          if (typeof text === 'string') return text;
          problems.push(`row ${row.number}, column ${header[i] || columnLetter(i)}: ${text.problem}`);
          return '';
        });
        if (header.length === 0) {
          // Cells left empty after the last name are no columns (a sheet keeps formatted empty cells).
          while (cells.length > 0 && cells[cells.length - 1].trim() === '') cells.pop();
          header = cells.map((cell) => cell.trim());
        } else {
          for (let i = header.length; i < cells.length; i += 1) {
            if (cells[i].trim() !== '') {
              problems.push(
                `row ${row.number}, column ${columnLetter(i)}: a cell beyond the last named column`,
              );
            }
          }
        }
        yield { number: row.number, cells, ...(problems.length > 0 ? { problems } : {}) };
      }
    }
  } catch (error) {
    if (unreadable !== undefined) throw unreadable.error;
    if (error instanceof InvalidInput) throw error;
    // exceljs's own message (a zip's signature, an XML parser's position) means nothing to the
    // secretary, and may quote the file: one line that says what the file should be.
    throw new UnreadableInput(
      `${source.name} is not an XLSX spreadsheet that can be read; save it as an Excel workbook (.xlsx)`,
    );
  }
  if (sheets === 0) throw new UnreadableInput(`${source.name} is not an XLSX spreadsheet: it has no sheet`);
}

/**
 * exceljs 4.4's streaming reader keeps the XML's own line breaks and indentation after a cell's
 * text (`<is><t>Zoë</t>\n  </is>` is read "Zoë\n  "), which files from Gnumeric hold; no cell
 * of ours ends with a line break that matters, so one at the very end is the file's layout.
 */
const XML_INDENTATION = /(?:\r?\n[ \t]*)+$/;

/** A cell as the text a CSV of the sheet would hold: a date as YYYY-MM-DD; an error cell is a problem. */
function cellText(value: ExcelJS.CellValue | undefined): string | { problem: string } {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.replace(XML_INDENTATION, '');
  // A number typed into a cell not kept as text: as the sheet shows it (41, not 000041).
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  // exceljs reads a date cell as midnight UTC of its day (a time of day, if any, is not a date's).
  if (value instanceof Date) {
    return Number.isNaN(value.getTime())
      ? { problem: 'holds a date that cannot be read' }
      : value.toISOString().slice(0, 10);
  }
  if ('error' in value) return { problem: `holds the error ${value.error}, not a value` };
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  // A formula's cell is its result as last calculated (the file keeps it).
  if ('formula' in value || 'sharedFormula' in value) return cellText(value.result as ExcelJS.CellValue);
  // A link (an email address a spreadsheet made into one) is its text.
  if ('hyperlink' in value) return cellText(value.text as ExcelJS.CellValue);
  return { problem: 'holds a value that is not text, a number or a date' };
}

/** A column's letters as the spreadsheet shows them, from its index counted from 0 (0 → A, 26 → AA). */
function columnLetter(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return letters;
}
