import { CHANGE_PAGE_OPENING, changePageClosing } from '../../../src/http/change.mapper';

describe('the change page around its rendered changes', () => {
  it('makes, with the changes joined in between, the page JSON.stringify would write for them', () => {
    const changes = [
      {
        seq: 7,
        at: '2025-03-15T12:00:00.000Z',
        type: 'person.erased',
        person_id: 3,
        fields: null,
        by: null,
        person: null,
      },
      {
        seq: 9,
        at: '2025-03-15T12:00:01.250Z',
        type: 'person.updated',
        person_id: 4,
        fields: ['chat_id'],
        by: 2,
        person: null,
      },
    ];
    const page = { changes, cursor: 'djEuY3Vyc29y', has_more: true };
    const joined = changes.map((change) => JSON.stringify(change)).join(',');

    expect(
      `${CHANGE_PAGE_OPENING}${joined}${changePageClosing({ cursor: page.cursor, hasMore: true })}`,
    ).toBe(JSON.stringify(page));
    expect(`${CHANGE_PAGE_OPENING}${changePageClosing({ cursor: 'c', hasMore: false })}`).toBe(
      '{"changes":[],"cursor":"c","has_more":false}',
    );
  });
});
