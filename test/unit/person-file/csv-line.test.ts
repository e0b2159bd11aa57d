import { CSV_BYTE_ORDER_MARK, csvCell, csvLine } from '../../../src/person-file/csv-line';
import { readStrictly, readWithPython } from '../../support/csv-readers';
import { outsideProgram } from '../../support/outside-program';

const python = outsideProgram('python3', 'apt-get install python3');

// The export's cells and the desk's downloads alike (src/desk/renewals.ts writes with csvLine).
const CELLS = [
  'plain',
  'Zoë Ångström',
  'a, b',
  'a; b',
  'say "hi"',
  'Ann"e',
  '2 Vega Lane\nSouthfield',
  '1 Orion Road\r\nNorthfield',
  'lone\rreturn',
  '',
  ' padded ',
  '=1+1',
];

describe('csvCell and csvLine: the one way every CSV is spelled', () => {
  it.each([',', ';', '"', '\r', '\n'])('quotes a cell holding %j, doubling its quotes', (character) => {
    expect(csvCell(`a${character}b`)).toBe(`"a${character === '"' ? '""' : character}b"`);
  });

  it('leaves every other cell as it is: no quotes, null and empty alike, numbers as written', () => {
    expect(csvCell('Zoë Ångström')).toBe('Zoë Ångström');
    expect(csvCell(' padded ')).toBe(' padded ');
    expect(csvCell('=1+1')).toBe('=1+1');
    expect(csvCell(null)).toBe('');
    expect(csvCell(12)).toBe('12');
  });

  it('ends each record with CR LF', () => {
    expect(csvLine(['a', null, 3])).toBe('a,,3\r\n');
  });

  const file = () => Buffer.from(`${CSV_BYTE_ORDER_MARK}${csvLine(CELLS)}${csvLine([...CELLS].reverse())}`);

  it('writes lines that a strict csv-parse reads back cell for cell', () => {
    expect(readStrictly(file())).toEqual([CELLS, [...CELLS].reverse()]);
  });

  python.it("writes lines that Python's csv module reads back cell for cell", () => {
    expect(readWithPython(python.path(), file())).toEqual([CELLS, [...CELLS].reverse()]);
  });
});
