import request from 'supertest';
import { createTestApp, newPerson, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';

interface Entry {
  at: string;
  actor_account_id: number | null;
  actor_key_id: number | null;
  action: string;
  subject_type: string;
  subject_id: number;
  field: string | null;
  old_value: string | null;
  new_value: string | null;
}

/** `npm run cli -- audit ...` on the app's database, read as JSON. */
async function audit(t: TestApp, args: string[]): Promise<Entry[]> {
  const result = await cli(t.database, ['audit', ...args, '--json']);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as Entry[];
}

describe.each(testDatabases)('the audit command shows changes made over the API, on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
  });
  afterAll(() => t.close());

  it('--person shows the PATCHes of a person and the keys an account issued and revoked; --since cuts', async () => {
    const account = await t.createAccount({ permissions: ['read', 'write'] });
    const token = await t.issueToken(account.username, account.password);
    const [keyId] = (await request(t.app).get('/keys').set('Authorization', `Bearer ${token}`)).body.map(
      (key: { id: number }) => key.id,
    );
    const [id] = await t.addPeople([newPerson({ firstName: 'First' })]);
    const patch = (name: string) =>
      request(t.app)
        .patch(`/people/${id}`)
        .set('Authorization', `Bearer ${token}`)
        .send({ person: { first_name: name } });

    expect((await patch('Second')).status).toBe(200);
    // Entries are stamped by the database clock: a pause makes the cut below unambiguous.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await patch('Third')).status).toBe(200);
    expect((await request(t.app).delete('/keys').set('Authorization', `Bearer ${token}`)).status).toBe(200);

    const aboutPerson = await audit(t, ['--person', String(id)]);
    expect(aboutPerson.map((e) => [e.action, e.field, e.old_value, e.new_value])).toEqual([
      ['person.update', 'first_name', 'Second', 'Third'],
      ['person.update', 'first_name', 'First', 'Second'],
    ]);
    for (const entry of aboutPerson) {
      expect(entry).toMatchObject({
        actor_account_id: account.personId,
        actor_key_id: keyId,
        subject_id: id,
      });
      expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
    }

    const byAccount = await audit(t, ['--person', String(account.personId)]);
    expect(byAccount.map((e) => [e.action, e.subject_type, e.subject_id])).toEqual(
      expect.arrayContaining([
        ['key.issue', 'api_key', keyId],
        ['key.revoke', 'api_key', keyId],
        ['person.update', 'person', id],
      ]),
    );

    const later = await audit(t, ['--person', String(id), '--since', between]);
    expect(later.map((e) => e.new_value)).toEqual(['Third']);
  });
});
