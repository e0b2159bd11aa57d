import { spawnSync } from 'node:child_process';
import { parse } from 'csv-parse/sync';

// RFC 4180 quotes a cell holding the delimiter, a quote or a line break; SPEC §9 adds `;`.
const NEEDS_QUOTES = /[",;\r\n]/;

/** A CSV the service wrote, read by csv-parse at its strictest: its rows, after checking the byte order mark. */
export function readStrictly(bytes: Buffer): string[][] {
  const text = bytes.toString('utf8');
  expect(text.startsWith('\ufeff')).toBe(true);
  return parse(text.slice(1), {
    bom: false,
    delimiter: ',',
    relax_quotes: false,
    relax_column_count: false,
    skip_empty_lines: false,
    trim: false,
  });
}

/** The same file read by Python's csv module, strict (every quote where RFC 4180 puts it). */
export function readWithPython(python: string, bytes: Buffer): string[][] {
  const script = [
    'import csv, io, json, sys',
    "text = io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8-sig', newline='')",
    'json.dump(list(csv.reader(text, strict=True)), sys.stdout)',
  ].join('\n');
  const run = spawnSync(python, ['-c', script], { input: bytes, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
}

/**
 * Checks what every reader must find in a written CSV: the header, and every row as wide as it.
 * And that each cell holding `,`, `;`, a quote, CR or LF is written quoted, `;` included, which
 * a comma-separated reader takes as it is but a spreadsheet program set to `;` splits. Answers the
 * rows after the header.
 */
export function expectWellFormed(bytes: Buffer, rows: string[][], header: readonly string[]): string[][] {
  expect(rows[0]).toEqual(header);
  for (const row of rows) expect(row).toHaveLength(header.length);
  const text = bytes.toString('utf8');
  for (const cell of rows.flat().filter((c) => NEEDS_QUOTES.test(c))) {
    expect(text).toContain(`"${cell.replaceAll('"', '""')}"`);
  }
  return rows.slice(1);
}
