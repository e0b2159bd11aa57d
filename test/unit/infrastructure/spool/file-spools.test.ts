import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSpools } from '../../../../src/infrastructure/spool/file-spools';

describe('FileSpools', () => {
  const parent = mkdtempSync(join(tmpdir(), 'spools-test-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('gives back what it kept, in order, line breaks and all, from a private file it removes when closed', async () => {
    const spool = await new FileSpools(parent).open<{ i: number; text: string | null; absent?: string }>();
    const items = Array.from({ length: 20_000 }, (_, i) => ({
      i,
      text: i % 2 ? `line\nbreak ${'é'.repeat(i % 50)}` : null,
    }));
    for (const item of items) await spool.add(item);

    const [directory] = readdirSync(parent);
    expect(statSync(join(parent, directory)).mode & 0o777).toBe(0o700);
    expect(statSync(join(parent, directory, 'records.jsonl')).mode & 0o777).toBe(0o600);
    const read = [];
    for await (const item of spool.read()) read.push(item);
    expect(read).toEqual(items);
    // Read again, the same.
    let count = 0;
    for await (const _ of spool.read()) count += 1;
    expect(count).toBe(items.length);

    await spool.close();
    expect(readdirSync(parent)).toEqual([]);
  });
});
