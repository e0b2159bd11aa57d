import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { AnnounceMembershipTransitions } from '../../../src/application/changes/announce-membership-transitions';
import { AnnounceRenewalNotices } from '../../../src/application/changes/announce-renewal-notices';
import type { NewMembership } from '../../../src/application/ports/person-repository';
import { APP } from '../../../src/container';
import type { WebhookRunner } from '../../../src/infrastructure/webhooks/webhook-runner';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { StoppedClock } from '../../support/stopped-clock';
import { cli } from '../cli/cli-harness';
import { tempFile } from '../cli/import-files';
import { startReceiver } from '../webhooks/receiver';

const period = (startDate: string, endDate: string | null): NewMembership => ({
  club: 'Astronomy',
  kind: 'full',
  startDate,
  endDate,
});

/**
 * membership.ending (SPEC §9): RENEWAL_NOTICE_DAYS before a current membership's end date, once
 * per membership and end date. The directory's clock is stopped in Kiritimati (UTC+14, whose date
 * is a day ahead of UTC's from 10:00Z) and moved by each test; each test's dates are its own.
 */
describe.each(testDatabases)('membership.ending on $name', (target) => {
  let t: TestApp;
  let reader: string;
  const clock = new StoppedClock('Pacific/Kiritimati', '2040-01-01T00:00:00Z');

  beforeAll(async () => {
    t = await createTestApp(target, {
      env: { DIRECTORY_TIMEZONE: 'Pacific/Kiritimati' },
      overrides: { clock },
    });
    reader = await t.tokenWith(['read']);
  });
  afterAll(() => t.close());

  const cursorNow = async () =>
    (await request(t.app).get('/people?limit=1').set('Authorization', `Bearer ${reader}`)).headers[
      'changes-cursor'
    ];
  /** Every change after the cursor, page by page. */
  async function changesAfter(cursor: string) {
    const changes: {
      type: string;
      person_id: number;
      by: number | null;
      fields: unknown;
      person: unknown;
    }[] = [];
    for (let after = cursor; ; ) {
      const res = await request(t.app)
        .get(`/changes?after=${after}&limit=1000`)
        .set('Authorization', `Bearer ${reader}`);
      expect(res.status).toBe(200);
      changes.push(...res.body.changes);
      if (!res.body.has_more) return changes;
      after = res.body.cursor;
    }
  }
  /** The changes after the cursor, about these people only when given. */
  const told = async (cursor: string, people?: number[]) =>
    (await changesAfter(cursor))
      .filter((c) => people === undefined || people.includes(c.person_id))
      .map((c) => [c.type, c.person_id]);
  const notices = (noticeDays = 30) => t.container.get(AnnounceRenewalNotices).execute({ noticeDays });
  const member = (...memberships: NewMembership[]) => newPerson({ memberships });
  /** `day` in Kiritimati, an hour after its midnight (10:00Z of the day before). */
  const on = (day: string) => {
    const utc = new Date(`${day}T00:00:00Z`);
    utc.setUTCHours(-13);
    clock.set(utc.toISOString());
  };

  it('tells it the set number of days before the end date, in the directory time zone, once', async () => {
    on('2040-05-30');
    const [id] = await t.addPeople([member(period('2040-01-01', '2040-06-30'))]);
    const start = await cursorNow();
    expect(await notices()).toEqual({ ending: 0 });

    on('2040-05-31'); // 30 days before 30 June
    expect(await notices()).toEqual({ ending: 1 });
    expect(await notices()).toEqual({ ending: 0 });
    on('2040-06-15');
    expect(await notices()).toEqual({ ending: 0 });
    const changes = await changesAfter(start);
    expect(changes).toEqual([
      expect.objectContaining({ type: 'membership.ending', person_id: id, fields: null, by: null }),
    ]);
    expect(changes[0].person).toMatchObject({
      id,
      memberships: [expect.objectContaining({ end_date: '2040-06-30', current: true })],
    });
  });

  it('tells a membership written already that near at the next run', async () => {
    on('2041-06-20');
    const start = await cursorNow();
    const [id] = await t.addPeople([member(period('2041-01-01', '2041-06-30'))]);
    await notices();
    expect(await told(start)).toEqual([['membership.ending', id]]);
  });

  it('catches up after downtime, but not for a membership that has ended meanwhile', async () => {
    on('2042-03-01');
    const [near, ended] = await t.addPeople([
      member(period('2042-01-01', '2042-04-20')),
      member(period('2042-01-01', '2042-04-05')),
    ]);
    expect(await notices()).toEqual({ ending: 0 });
    const start = await cursorNow();

    on('2042-04-10'); // down since 1 March: both came near; one has ended since
    await notices();
    expect(await told(start)).toEqual([['membership.ending', near]]);
    expect(ended).toBeGreaterThan(near);
  });

  it('is off with 0 days, and follows another number of days', async () => {
    on('2043-06-01');
    const [id] = await t.addPeople([member(period('2043-01-01', '2043-06-30'))]);
    const start = await cursorNow();
    expect(await notices(0)).toEqual({ ending: 0 });
    expect(await notices(7)).toEqual({ ending: 0 });
    on('2043-06-23');
    expect(await notices(7)).toEqual({ ending: 1 });
    expect(await told(start)).toEqual([['membership.ending', id]]);
  });

  it('is not told when a renewal is already recorded, and is told when the next membership leaves a gap', async () => {
    on('2044-06-15');
    const [renewed, gap, otherClub] = await t.addPeople([
      member(period('2043-07-01', '2044-06-30'), period('2044-07-01', '2045-06-30')),
      member(period('2043-07-01', '2044-06-30'), period('2044-07-05', '2045-06-30')),
      member(period('2043-07-01', '2044-06-30'), { ...period('2000-01-01', null), club: 'Optics' }),
    ]);
    const start = await cursorNow();
    await notices();
    expect(await told(start)).toEqual([['membership.ending', gap]]);
    expect([renewed, otherClub]).not.toContain(gap);
  });

  it('tells a renewal that moves the end date later again when the new date comes near', async () => {
    on('2045-06-10');
    const memberNumber = uniqueName('NA');
    const names = { firstName: 'Cecilia', lastName: memberNumber };
    const [id] = await t.addPeople([
      newPerson({ ...names, memberNumber, memberships: [period('2045-01-01', '2045-06-30')] }),
    ]);
    const start = await cursorNow();
    await notices();

    // The secretary imports the renewal: the same membership, its end a year later.
    const file = tempFile([
      {
        member_number: memberNumber,
        first_name: names.firstName,
        last_name: names.lastName,
        memberships: [{ club: 'Astronomy', kind: 'full', start_date: '2045-01-01', end_date: '2046-06-30' }],
      },
    ]);
    const imported = await cli(t.database, ['import', file], { container: t.container });
    expect(imported.stderr).toBe('');
    const endings = async () => (await told(start, [id])).filter(([type]) => type === 'membership.ending');
    await notices();
    expect(await endings()).toEqual([['membership.ending', id]]);
    on('2046-05-30');
    await notices();
    expect(await endings()).toHaveLength(1);
    on('2046-05-31'); // 30 days before the new end date
    await notices();
    await notices();
    expect(await endings()).toEqual([
      ['membership.ending', id],
      ['membership.ending', id],
    ]);
  });

  it("never tells an erased person's, and never shows an admin's", async () => {
    on('2047-06-20');
    const [erased] = await t.addPeople([member(period('2047-01-01', '2047-06-30'))]);
    await t.addPeople([newPerson({ role: 'admin', memberships: [period('2047-01-01', '2047-06-30')] })]);
    expect(
      (await cli(t.database, ['people', 'erase', String(erased), '--yes'], { container: t.container })).code,
    ).toBe(0);
    const start = await cursorNow();
    await notices();
    expect(await told(start)).toEqual([]);
  });

  it('comes after membership.started when a membership begins already near its end', async () => {
    on('2048-05-01');
    const [id] = await t.addPeople([member(period('2048-06-01', '2048-06-20'))]);
    const start = await cursorNow();
    on('2048-06-02');
    await t.container.get(AnnounceMembershipTransitions).execute();
    await notices();
    expect(await told(start, [id])).toEqual([
      ['membership.started', id],
      ['membership.ending', id],
    ]);
  });

  it('deals with more memberships than one batch, each once', async () => {
    on('2049-06-01');
    const ids = await t.addPeople(
      Array.from({ length: 1100 }, () => member(period('2049-01-01', '2049-06-15'))),
    );
    const start = await cursorNow();
    expect(await notices()).toEqual({ ending: 1100 });
    expect(await notices()).toEqual({ ending: 0 });
    expect((await changesAfter(start)).map((c) => c.person_id).sort((a, b) => a - b)).toEqual(ids);
  });

  it('reaches a webhook subscribed to membership.ending, signed', async () => {
    const hook = await startReceiver();
    const runner = t.container.get<WebhookRunner>(APP.WebhookRunner);
    try {
      const added = await cli(t.database, ['webhooks', 'add', hook.url, '--events', 'membership.ending'], {
        container: t.container,
      });
      expect(added.code).toBe(0);
      const secret = /^secret: (whsec_\S+)$/m.exec(added.stdout)?.[1] ?? '';
      runner.start();
      on('2050-06-01');
      const [id] = await t.addPeople([member(period('2050-01-01', '2050-06-30'))]);
      await notices();
      const [message] = await hook.waitFor(1);
      const payload = new Webhook(secret).verify(message.body, message.headers);
      expect(payload).toMatchObject({ type: 'membership.ending', person_id: id });
      expect(hook.received).toHaveLength(1); // the person.created it was not subscribed to
    } finally {
      await runner.stop();
      await hook.close();
    }
  });
});
