import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli, countPeople } from './cli-harness';

describe.each(testDatabases)('demo on $name', (target) => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await createTestApp(target);
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('fills the directory and prints credentials and curl commands that work against the API', async () => {
    const result = await cli(testApp.database, ['demo']);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    const password = /^password: (\S+)$/m.exec(result.stdout)?.[1] ?? '';
    expect(result.stdout).toMatch(/^username: demo$/m);
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(result.stdout).toContain(`curl -s -X POST -u 'demo:${password}' http://localhost:3000/keys`);
    expect(result.stdout).toContain("curl -s -H 'Authorization: Bearer TOKEN' http://localhost:3000/people");
    expect(result.stdout).toMatch(/secretary's page[^\n]*\n {2}http:\/\/localhost:3000\/desk$/m);

    const issued = await request(testApp.app).post('/keys').auth('demo', password);
    expect(issued.status).toBe(201);
    expect(issued.body.permissions).toEqual(['read', 'write', 'manage']);

    const people = await request(testApp.app)
      .get('/people')
      .set('Authorization', `Bearer ${issued.body.token}`);
    expect(people.status).toBe(200);
    expect(people.body.length).toBeGreaterThanOrEqual(45);
    const clubs = new Set(
      people.body.flatMap((p: { memberships: { club: { name: string } }[] }) =>
        p.memberships.map((m) => m.club.name),
      ),
    );
    expect(clubs.size).toBe(3);
    const current = await request(testApp.app)
      .get('/people?active=yes')
      .set('Authorization', `Bearer ${issued.body.token}`);
    const inactive = await request(testApp.app)
      .get('/people?active=no')
      .set('Authorization', `Bearer ${issued.body.token}`);
    expect(current.body.length).toBeGreaterThan(0);
    expect(inactive.body.length).toBeGreaterThan(0);

    // A follower of the feed from its start learns of every demo person, and of no admin.
    const feed = await request(testApp.app)
      .get('/changes?limit=1000')
      .set('Authorization', `Bearer ${issued.body.token}`);
    expect(feed.status).toBe(200);
    const created = feed.body.changes.filter((c: { type: string }) => c.type === 'person.created');
    expect(
      created.map((c: { person_id: number }) => c.person_id).sort((a: number, b: number) => a - b),
    ).toEqual(people.body.map((p: { id: number }) => p.id).sort((a: number, b: number) => a - b));
    expect(created.every((c: { by: number | null }) => c.by === null)).toBe(true);
  });

  it('refuses to run a second time, with exit 1 and a reason, changing nothing', async () => {
    const before = await countPeople(testApp.database);

    const again = await cli(testApp.database, ['demo']);

    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the demo directory exists already (there is an account "demo"); to get a new password run: accounts password demo\n',
    });
    expect(await countPeople(testApp.database)).toBe(before);
  });
});
