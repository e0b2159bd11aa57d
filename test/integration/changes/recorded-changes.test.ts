import request from 'supertest';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

interface ChangeRow {
  seq: string;
  type: string;
  person_id: number;
  fields: string[] | null;
  by_key_id: number | null;
}

/** What the writes leave in the change log (the outbox), read from its table. */
describe.each(testDatabases)('changes recorded by writes on $name', (target) => {
  let t: TestApp;
  let writer: string;
  let writerKeyId: number;

  beforeAll(async () => {
    t = await createTestApp(target);
    writer = await t.tokenWith(['read', 'write']);
    const keys = await request(t.app).get('/keys').set('Authorization', `Bearer ${writer}`);
    writerKeyId = keys.body[0].id;
  });
  afterAll(() => t.close());

  const changesOf = (personId: number): Promise<ChangeRow[]> =>
    t.database.dataSource.query(
      'SELECT seq, type, person_id, fields, by_key_id FROM changes WHERE person_id = $1 ORDER BY seq',
      [personId],
    );
  const patch = (id: number, body: object) =>
    request(t.app).patch(`/people/${id}`).set('Authorization', `Bearer ${writer}`).send(body);

  it('records person.updated with the fields that changed and the key that changed them', async () => {
    const [id] = await t.addPeople([newPerson({ firstName: 'Vera', lastName: 'Rubin' })]);

    expect((await patch(id, { 'person[first_name]': 'Vera C.', 'person[last_name]': 'Rubin' })).status).toBe(
      200,
    );
    expect((await patch(id, { person: { chat_id: uniqueName('chat') } })).status).toBe(200);

    expect(await changesOf(id)).toEqual([
      expect.objectContaining({
        type: 'person.updated',
        person_id: id,
        fields: ['first_name'],
        by_key_id: writerKeyId,
      }),
      expect.objectContaining({
        type: 'person.updated',
        person_id: id,
        fields: ['chat_id'],
        by_key_id: writerKeyId,
      }),
    ]);
  });

  it('records nothing for a PATCH that changes nothing, or that fails', async () => {
    const chatId = uniqueName('chat');
    const [id, other] = await t.addPeople([newPerson({ firstName: 'Same' }), newPerson({ chatId })]);

    expect((await patch(id, { 'person[first_name]': ' Same ' })).status).toBe(200);
    expect((await patch(id, { 'person[first_name]': 'New', 'person[chat_id]': chatId })).status).toBe(409);

    expect(await changesOf(id)).toEqual([]);
    expect(await changesOf(other)).toEqual([]);
  });
});
