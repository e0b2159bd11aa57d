import { resolveFileArguments } from '../../../src/cli/file-arguments';

describe('FILE arguments made absolute against the caller directory', () => {
  it('takes the second argument of people export-data ID FILE as the file', () => {
    expect(resolveFileArguments(['people', 'export-data', '12', 'out.json'], '/home/sec')).toEqual([
      'people',
      'export-data',
      '12',
      '/home/sec/out.json',
    ]);
  });

  it('takes the one argument as the file when --member-number names the person', () => {
    expect(
      resolveFileArguments(['people', 'export-data', '--member-number', 'NA-1', 'out.json'], '/home/sec'),
    ).toEqual(['people', 'export-data', '--member-number', 'NA-1', '/home/sec/out.json']);
  });

  it('leaves an ID given with --member-number as it is, for the command to refuse', () => {
    const argv = ['people', 'export-data', '12', '--member-number', 'NA-1'];
    expect(resolveFileArguments(argv, '/home/sec')).toEqual(argv);
  });
});
