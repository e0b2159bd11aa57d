import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bufferSource,
  RECORD_MAX_BYTES,
  readJsonArray,
} from '../../../../src/cli/person-file/read-json-array';

const directory = mkdtempSync(join(tmpdir(), 'read-json-array-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

function file(content: string | Buffer): string {
  files += 1;
  const path = join(directory, `${files}.json`);
  writeFileSync(path, content);
  return path;
}

async function read(path: Parameters<typeof readJsonArray>[0]): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const element of readJsonArray(path)) {
    expect(element.index).toBe(values.length);
    values.push('value' in element ? element.value : 'too large');
  }
  return values;
}

describe('readJsonArray', () => {
  it('hands over each element of any JSON array, strings with brackets, commas and escapes included', async () => {
    const values = [
      { a: '[x], {y}', b: ['"q"', '\\'], c: { d: [1, 2, { e: null }] } },
      'text ] , }',
      42,
      null,
      [],
      { unicode: 'Zoë 𠮷 \u2028' },
    ];
    expect(await read(file(JSON.stringify(values, null, 2)))).toEqual(values);
    expect(await read(file('\ufeff[]'))).toEqual([]);
    expect(await read(file(' \n[ \n ] \n'))).toEqual([]);
  });

  it('reads elements that cross the chunks it reads the file in', async () => {
    const values = Array.from({ length: 3000 }, (_, i) => ({ i, text: 'é'.repeat(i % 700), quote: '"\\' }));
    expect(await read(file(JSON.stringify(values)))).toEqual(values);
  });

  it.each([
    [
      'a truncated array',
      '[{"a": 1},\n{"b": 2}',
      /is not valid JSON: the file ends inside the array \(line 2, column 9\)$/,
    ],
    [
      'a trailing comma',
      '[1, 2, ]',
      /is not valid JSON: a value is missing in the array \(line 1, column 8\)$/,
    ],
    [
      'text after the array',
      '[1]\nx',
      /is not valid JSON: unexpected text after the array \(line 2, column 1\)$/,
    ],
    [
      'a bad element',
      '[\n  {"a": 1},\n  {"a": }\n]',
      /is not valid JSON: Unexpected token '}' \(line 3, column 3\)$/,
    ],
    [
      'a bad value',
      '[{"a": 1}, {"a": 1 "b": 2}]',
      /is not valid JSON: Expected ',' or '}' after property value \(line 1, column 20\)$/,
    ],
  ])('refuses %s in one line', async (_name, content, message) => {
    await expect(read(file(content))).rejects.toThrow(message);
  });

  it.each([
    ['an object', '{"first_name": "A"}'],
    ['an empty file', ''],
  ])('refuses %s as not an array of people', async (_name, content) => {
    await expect(read(file(content))).rejects.toMatchObject({
      messages: ['the file must hold a JSON array of people'],
    });
  });

  it('hands on the index of an element larger than 1 MiB without holding it, and reads on', async () => {
    const big = { text: 'x'.repeat(RECORD_MAX_BYTES) };
    // Under 1 MiB in characters, over it in bytes.
    const wide = { text: 'é'.repeat(RECORD_MAX_BYTES / 2) };
    const fits = { text: 'y'.repeat(RECORD_MAX_BYTES - 100) };
    expect(await read(file(JSON.stringify([1, big, 2, wide, fits, 3])))).toEqual([
      1,
      'too large',
      2,
      'too large',
      fits,
      3,
    ]);
  });

  it('reads a request body as it reads a file, naming it in its messages', async () => {
    const values: unknown[] = [];
    for await (const element of readJsonArray(
      bufferSource('the request body', Buffer.from('[1, {"a": 2}]'), 3),
    )) {
      values.push('value' in element ? element.value : null);
    }
    expect(values).toEqual([1, { a: 2 }]);
    await expect(read(bufferSource('the request body', Buffer.from('[1, }]')) as never)).rejects.toThrow(
      /^the request body is not valid JSON: /,
    );
  });

  it('names the first line that is not UTF-8', async () => {
    const path = file(Buffer.concat([Buffer.from('[\n1,\n"'), Buffer.from([0xff]), Buffer.from('"\n]')]));
    await expect(read(path)).rejects.toThrow(`${path} is not UTF-8 text (line 3); save it as UTF-8`);
  });

  it('reports a missing file in one line', async () => {
    await expect(read(join(directory, 'missing.json'))).rejects.toThrow(
      /^cannot read .*missing\.json: no such file$/,
    );
  });
});
