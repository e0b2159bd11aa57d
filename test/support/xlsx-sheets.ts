import ExcelJS from 'exceljs';

/** A member number of digits with leading zeros, unique in the test run (a spreadsheet would drop the zeros). */
export function zeroPaddedNumber(): string {
  return `000${String(Math.floor(Math.random() * 1e9)).padStart(9, '1')}`;
}

/** The first sheet of an XLSX file as a spreadsheet program reads it: every row's cells, from column A. */
export async function readSheet(bytes: Buffer): Promise<ExcelJS.Cell[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  const rows: ExcelJS.Cell[][] = [];
  workbook.worksheets[0].eachRow((row) => {
    const cells: ExcelJS.Cell[] = [];
    for (let i = 1; i <= row.cellCount; i += 1) cells.push(row.getCell(i));
    rows.push(cells);
  });
  return rows;
}

/** An XLSX file of one sheet holding these rows, each value typed as given (a number stays a number). */
export async function sheetFile(rows: (string | number | Date | null)[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('roster');
  for (const row of rows) sheet.addRow(row);
  for (const row of rows.keys()) {
    rows[row].forEach((value, i) => {
      if (value instanceof Date) sheet.getRow(row + 1).getCell(i + 1).numFmt = 'yyyy-mm-dd';
    });
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
