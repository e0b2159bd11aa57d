import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { type PeopleProducer, sheetColumns, sheetRows } from './people-writers';

/** The media type of an XLSX file (SPEC §9), as requests and answers name it. */
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The columns whose cells are dates in the sheet; every other cell is text. */
const DATE_COLUMNS = new Set(['start_date', 'end_date']);
/** Excel's format code for text: what is typed into such a cell stays text, leading zeros and `+` included. */
const TEXT_FORMAT = '@';
const DATE_FORMAT = 'yyyy-mm-dd';

/**
 * The spreadsheet of SPEC §9 as an XLSX workbook of one sheet: the same columns and rows as the CSV
 * (sheetRows), which `import FILE.xlsx` reads back unchanged. Every cell is text, never a number
 * or a formula (a member number keeps its leading zeros, a phone its `+`, and a cell starting with
 * `=` is shown, not run), except start_date and end_date, which are dates, so that the sheet sorts
 * and filters them as dates.
 *
 * exceljs's streaming writer (no shared strings) writes each row into the zip as it is committed,
 * and the next person is read only when the output has taken what was written: memory stays
 * bounded however many people there are, as the CSV export's does.
 */
export async function writeXlsxPeople(
  out: Writable,
  produce: PeopleProducer,
  options: { current?: boolean } = {},
): Promise<number> {
  // exceljs ends the stream it is given; the output (standard output, a response) is ended by its owner.
  const zip = new PassThrough();
  zip.pipe(out, { end: false });
  const zipped = once(zip, 'end');
  // An output that goes away (a download cancelled) must not leave the export, and its
  // transaction, waiting for a drain that never comes: the rest of the zip is let go.
  const letGo = () => {
    zip.unpipe(out);
    zip.resume();
  };
  out.once('close', letGo);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: zip,
    useStyles: true,
    useSharedStrings: false,
  });
  const columns = sheetColumns(options);
  const sheet = workbook.addWorksheet(options.current ? 'current members' : 'members', {
    views: [{ state: 'frozen', ySplit: 1 }],
  });
  sheet.columns = columns.map((name) => ({
    key: name,
    width: DATE_COLUMNS.has(name) ? 12 : 18,
    style: { numFmt: DATE_COLUMNS.has(name) ? DATE_FORMAT : TEXT_FORMAT },
  }));
  const header = sheet.addRow([...columns]);
  header.font = { bold: true };
  header.commit();
  const { people } = await produce(async (person, today, grace) => {
    for (const cells of sheetRows(person, today, grace, options)) {
      sheet.addRow(cells.map((cell, i) => typedCell(columns[i], cell))).commit();
    }
    // The zip is waiting on a slow reader (a download over a slow line): wait with it.
    if (zip.writableNeedDrain) await once(zip, 'drain');
  });
  sheet.commit();
  await workbook.commit();
  await zipped;
  out.off('close', letGo);
  return people;
}

/** A cell's value: a date (midnight UTC, which Excel shows as that day) in a date column, else text. */
function typedCell(column: string, value: string | number | null): string | Date | null {
  if (value === null || value === '') return null;
  if (DATE_COLUMNS.has(column)) return new Date(`${value}T00:00:00.000Z`);
  return String(value);
}
