import { checkPersonRecord } from '../../../src/person-file/person-file-record';
import { record } from '../support/import-fixture';

function errorsOf(value: unknown): string[] {
  const checked = checkPersonRecord(value);
  return 'errors' in checked ? checked.errors : [];
}

describe('checkPersonRecord', () => {
  it('accepts a complete record and one with only names', () => {
    expect(errorsOf(record())).toEqual([]);
    expect(errorsOf({ first_name: 'A', last_name: 'B' })).toEqual([]);
  });

  it('allows line breaks in an address but not in other contacts, and no control characters in names', () => {
    expect(errorsOf(record({ contacts: [{ kind: 'address', value: '1 Road\r\nTown' }] }))).toEqual([]);
    expect(errorsOf(record({ contacts: [{ kind: 'phone', value: '1\n2' }] }))).toEqual([
      'contacts[0].value must not contain control characters (found U+000A)',
    ]);
    expect(errorsOf(record({ first_name: 'A\tB' }))).toEqual([
      'first_name must not contain control characters (found U+0009)',
    ]);
  });

  it('refuses NUL, lone surrogates and control characters in every text field, naming it', () => {
    expect(
      errorsOf(
        record({
          first_name: 'Ada\ud800',
          last_name: 'By\u0000ron',
          chat_id: 'c\u0085',
          planner_id: '\udc00',
          contacts: [{ kind: 'address', value: '1 Road\n\u0007Town', label: 'ho\u001bme' }],
          memberships: [
            { club: 'North\ud83d', kind: 'fu\u007fll', start_date: '2024-01-01', end_date: null },
          ],
        }),
      ),
    ).toEqual([
      'first_name must not contain a lone surrogate (U+D800)',
      'last_name must not contain the NUL character (U+0000)',
      'chat_id must not contain control characters (found U+0085)',
      'planner_id must not contain a lone surrogate (U+DC00)',
      'contacts[0].label must not contain control characters (found U+001B)',
      'contacts[0].value must not contain control characters (found U+0007)',
      'memberships[0].club must not contain a lone surrogate (U+D83D)',
      'memberships[0].kind must not contain control characters (found U+007F)',
    ]);
  });

  it('counts lengths in characters, so 100 characters outside the BMP are a valid name', () => {
    expect(errorsOf(record({ first_name: '𠮷'.repeat(100), last_name: '😀'.repeat(100) }))).toEqual([]);
    expect(errorsOf(record({ first_name: '𠮷'.repeat(101), chat_id: '😀'.repeat(65) }))).toEqual([
      'first_name must be at most 100 characters',
      'chat_id must be at most 64 characters',
    ]);
  });

  it('stores names and other text in NFC, and a blank chat_id or planner_id as not set', () => {
    const checked = checkPersonRecord(
      record({
        first_name: 'Zoe\u0308',
        last_name: ' Ma\u0301rquez ',
        chat_id: '   ',
        planner_id: '',
        contacts: [{ kind: 'address', value: 'Stra\u00dfe 1\nK\u00f6ln', label: 'Bu\u0308ro' }],
        memberships: [{ club: 'Cafe\u0301', kind: null, start_date: '2024-01-01', end_date: null }],
      }),
    );
    expect(checked).toEqual({
      record: expect.objectContaining({
        firstName: 'Zoë',
        lastName: 'Márquez',
        chatId: null,
        plannerId: null,
        contacts: [{ kind: 'address', value: 'Straße 1\nKöln', label: 'Büro' }],
        memberships: [{ club: 'Café', kind: null, startDate: '2024-01-01', endDate: null }],
      }),
    });
  });

  it('keeps a chat_id exactly as given, and refuses one that NFC would change', () => {
    expect(checkPersonRecord(record({ chat_id: ' @zoë:example.org' }))).toEqual({
      record: expect.objectContaining({ chatId: ' @zoë:example.org' }),
    });
    expect(errorsOf(record({ chat_id: '@zoe\u0308:example.org' }))).toEqual([
      'chat_id must be in Unicode normalization form C (NFC): an identifier is stored exactly as given',
    ]);
  });

  it('refuses a field the directory computes, naming it, wherever it is', () => {
    const computed = (field: string) =>
      `"${field}" is computed by the directory from the dates (and GRACE_DAYS), never imported: leave it out`;
    expect(
      errorsOf(
        record({
          standing: 'current',
          good_standing_until: null,
          memberships: [
            {
              club: 'X',
              kind: null,
              start_date: '2024-01-01',
              end_date: null,
              current: true,
              status: 'current',
              grace_until: null,
            },
          ],
        }),
      ),
    ).toEqual([
      `field ${computed('standing')}`,
      `field ${computed('good_standing_until')}`,
      `memberships[0].field ${computed('current')}`,
      `memberships[0].field ${computed('status')}`,
      `memberships[0].field ${computed('grace_until')}`,
    ]);
  });

  it('names nested fields precisely', () => {
    expect(
      errorsOf(
        record({
          contacts: [{ kind: 'email', value: 'a@b', colour: 'red' }, { kind: 'phone' }, 5],
          memberships: [
            { start_date: '2024-01-01', end_date: 'soon' },
            { club: 'X', start_date: null },
          ],
        }),
      ),
    ).toEqual([
      'contacts[0].unknown field "colour"',
      'contacts[1].value is required',
      'contacts[2] must be an object',
      'memberships[0].club is required',
      'memberships[0].end_date must be a calendar date written YYYY-MM-DD',
      'memberships[1].start_date is required',
    ]);
  });

  it('checks types and lengths of the optional fields', () => {
    expect(
      errorsOf(record({ chat_id: 5, planner_id: 'x'.repeat(65), contacts: 'none', memberships: {} })),
    ).toEqual([
      'chat_id must be a string or null',
      'planner_id must be at most 64 characters',
      'contacts must be an array',
      'memberships must be an array',
    ]);
  });
});
