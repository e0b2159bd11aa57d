import { graceOf, NO_GRACE } from '../../src/domain/grace';
import { renderChange } from '../../src/application/changes/change-view';
import type { RenderedPage } from '../../src/application/ports/change-feed';
import type { NewChange } from '../../src/application/ports/change-log';
import {
  type ContractAdapter,
  idsTagged,
  memberIdsTagged,
  newPerson,
  TODAY,
  uniqueTag,
} from './contract-adapter';

/** A rendered page read to its end: its position and every change, in the order handed on. */
async function readAll(reading: Promise<RenderedPage>) {
  const { position, changes } = await reading;
  const all = [];
  for await (const batch of changes) all.push(...batch);
  return { position, changes: all };
}

/**
 * ChangeLog (the outbox every write of people records into), ChangeFeed (its read side) and
 * MembershipCalendar. Tests share one store: each finds its own changes by person ids no other
 * test uses (no such person exists) or by its own people.
 */
export function describeChangeLogContract(adapter: () => ContractAdapter): void {
  const unitOfWork = () => adapter().unitOfWork;
  const feed = () => adapter().feed;
  let nextPerson = 1_500_000_000 + Math.floor(Math.random() * 100_000_000);

  const change = (personId: number, overrides: Partial<NewChange> = {}): NewChange => ({
    type: 'person.updated',
    personId,
    fields: ['first_name', 'chat_id'],
    byKeyId: 7,
    ...overrides,
  });

  /** The changes after `after` about these people, in feed order. */
  async function changesOf(after: number, people: number[]) {
    const { changes } = await feed().page(after, 100_000);
    return changes.filter((c) => people.includes(c.personId));
  }

  describe('ChangeLog and ChangeFeed', () => {
    it('writes the changes of a unit of work when it commits, in the order recorded, with rising seqs', async () => {
      const [a, b] = [nextPerson++, nextPerson++];
      const { latest } = await feed().position();
      const before = Date.now();

      await unitOfWork().run(async (tx) => {
        await tx.changes.record([
          change(a),
          change(b, { type: 'person.created', fields: null, byKeyId: null }),
        ]);
        await tx.changes.record([change(a, { type: 'person.erased', fields: null })]);
      });

      const written = await changesOf(latest, [a, b]);
      expect(written.map((c) => [c.type, c.personId, c.fields, c.byKeyId])).toEqual([
        ['person.updated', a, ['first_name', 'chat_id'], 7],
        ['person.created', b, null, null],
        ['person.erased', a, null, 7],
      ]);
      const seqs = written.map((c) => c.seq);
      expect(seqs[0]).toBeGreaterThan(latest);
      expect(seqs[1]).toBeGreaterThan(seqs[0]);
      expect(seqs[2]).toBeGreaterThan(seqs[1]);
      for (const c of written) {
        expect(c.at.getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(c.at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
        expect(c.person).toBeNull();
      }
      expect((await feed().position()).latest).toBe(seqs[2]);
    });

    it('writes nothing of a unit of work that fails', async () => {
      const personId = nextPerson++;
      const { latest } = await feed().position();

      await expect(
        unitOfWork().run(async (tx) => {
          await tx.changes.record([change(personId)]);
          throw new Error('the work failed');
        }),
      ).rejects.toThrow('the work failed');

      expect(await changesOf(latest, [personId])).toEqual([]);
    });

    it('shows nobody the changes of a unit of work before it has committed', async () => {
      const personId = nextPerson++;
      const { latest } = await feed().position();
      let recorded!: () => void;
      const wasRecorded = new Promise<void>((resolve) => {
        recorded = resolve;
      });
      let committed = false;

      const unit = unitOfWork()
        .run(async (tx) => {
          await tx.changes.record([change(personId)]);
          recorded();
          await new Promise((resolve) => setTimeout(resolve, 100));
        })
        .then(() => {
          committed = true;
        });
      await wasRecorded;
      // A store with one connection makes this read wait for the unit: then it may see the change.
      const during = changesOf(latest, [personId]).then((changes) => ({ changes, beforeCommit: !committed }));
      await unit;
      const read = await during;

      if (read.beforeCommit) expect(read.changes).toEqual([]);
      expect(await changesOf(latest, [personId])).toHaveLength(1);
    });

    it("gives each change its person as they are now, each person's changes the same copy", async () => {
      const tag = uniqueTag();
      await adapter().repositories.people.insertMany([newPerson({ lastName: tag })]);
      const [id] = await memberIdsTagged(adapter(), tag);
      const { latest } = await feed().position();

      await unitOfWork().run((tx) => tx.changes.record([change(id)]));
      await unitOfWork().run(async (tx) => {
        await tx.people.update(id, { firstName: 'Now' });
        await tx.changes.record([change(id, { fields: ['first_name'] })]);
      });

      const written = await changesOf(latest, [id]);
      expect(written.map((c) => c.person?.firstName)).toEqual(['Now', 'Now']);
      expect(written[0].person).toMatchObject({ id, lastName: tag, role: 'member', version: 2 });
    });

    it('reads at most `limit` changes after a seq, oldest first', async () => {
      const ids = [nextPerson++, nextPerson++, nextPerson++];
      const { latest } = await feed().position();
      await unitOfWork().run((tx) => tx.changes.record(ids.map((id) => change(id))));

      const { changes, position } = await feed().page(latest, 2);
      expect(changes.map((c) => c.personId)).toEqual(ids.slice(0, 2));
      expect(position.latest).toBeGreaterThanOrEqual(changes[1].seq);
      const rest = await feed().page(changes[1].seq, 10);
      expect(rest.changes.map((c) => c.personId)).toEqual([ids[2]]);
    });

    it('records outside a unit of work at once', async () => {
      const personId = nextPerson++;
      const { latest } = await feed().position();
      await adapter().repositories.changes.record([change(personId)]);
      expect(await changesOf(latest, [personId])).toHaveLength(1);
    });

    it('prunes changes recorded before a moment, moving the pruned-through mark; the newest seq stays', async () => {
      const personId = nextPerson++;
      await unitOfWork().run((tx) => tx.changes.record([change(personId)]));
      const before = await feed().position();

      expect(await feed().prune(new Date(Date.now() - 3_600_000))).toBe(0);
      expect(await feed().position()).toEqual(before);

      const kept = (await feed().page(before.prunedThrough, 100_000)).changes.length;
      const removed = await feed().prune(new Date(Date.now() + 60_000));
      const after = await feed().position();
      expect(removed).toBe(kept);
      expect(after).toEqual({
        directoryId: before.directoryId,
        prunedThrough: before.latest,
        latest: before.latest,
      });
      expect((await feed().page(0, 10)).changes).toEqual([]);

      const later = nextPerson++;
      await unitOfWork().run((tx) => tx.changes.record([change(later)]));
      const { changes } = await feed().page(0, 10);
      expect(changes.map((c) => c.personId)).toEqual([later]);
      expect(changes[0].seq).toBeGreaterThan(after.prunedThrough);
    });

    describe('rendered pages (the read model)', () => {
      // Text that JSON escapes (quotes, backslashes, control characters) and text it must not
      // (non-ASCII, astral characters, U+2028, DEL, a slash).
      const awkward = ['Quote " and \\ back', 'tab\tnew\nline\r\u0001\u001f\u007f', 'Zoë 𝔘 \u2028 </x> ☃'];

      it("writes each change byte for byte as JSON.stringify writes its view: admins' left out but for person.removed, the erased null", async () => {
        const tag = uniqueTag();
        await adapter().repositories.people.insertMany([
          newPerson({
            firstName: awkward[0],
            lastName: `${tag} ${awkward[1]}`,
            chatId: `${awkward[2]} ${tag}`,
            plannerId: 'planner "7"',
            memberNumber: 'M-1/2',
            contacts: [
              { kind: 'address', value: `1 Main St\n${awkward[2]}`, label: awkward[0] },
              { kind: 'email', value: `ada.${tag}@example.org`, label: 'work' },
              { kind: 'phone', value: '+44 20 7946 0000', label: null },
            ],
            memberships: [
              { club: `Club ${awkward[0]}`, kind: null, startDate: '2024-06-15', endDate: null },
              { club: `Club ${awkward[2]}`, kind: 'student', startDate: '2020-01-01', endDate: '2024-06-14' },
              { club: `Club ${awkward[2]}`, kind: 'family', startDate: '2024-06-16', endDate: '2025-01-01' },
            ],
          }),
          newPerson({ lastName: `${tag} bare` }),
          newPerson({ lastName: `${tag} erased` }),
          newPerson({ lastName: `${tag} admin`, role: 'admin' }),
        ]);
        const [awkwardOne, bare, erased, admin] = await idsTagged(adapter(), tag);
        await unitOfWork().run((tx) => tx.people.erase([erased]));
        const nobody = nextPerson++;
        const { latest } = await feed().position();

        // Units of work of their own: changes at different moments (the milliseconds of `at`).
        const written: NewChange[] = [
          change(awkwardOne, { type: 'person.created', fields: null, byKeyId: null }),
          change(bare, { fields: ['last_name', 'contacts', 'memberships', 'member_number', 'planner_id'] }),
          change(admin),
          // A member made an admin: shown, to tell followers to delete their copy, without a person.
          change(admin, { type: 'person.removed', fields: null }),
          change(erased, { type: 'person.erased', fields: null }),
          change(nobody, { type: 'membership.started', fields: null, byKeyId: null }),
          change(awkwardOne, { type: 'membership.ended', fields: null, byKeyId: 2_000_000_000 }),
          change(awkwardOne, { fields: [] }),
          change(bare),
        ];
        for (const one of written) await unitOfWork().run((tx) => tx.changes.record([one]));

        const graces = [NO_GRACE, graceOf(30, [['Student', 2]])];
        for (const [today, grace] of [TODAY, '2024-06-16'].flatMap((day) =>
          graces.map((g) => [day, g] as const),
        )) {
          const { position, changes } = await feed().page(latest, 100);
          const rendered = await readAll(feed().renderedPage(latest, 100, today, grace));
          expect(changes).toHaveLength(written.length);
          expect(rendered.position).toEqual(position);
          expect(rendered.changes).toEqual(changes.map((one) => renderChange(one, today, grace)));

          const shown = rendered.changes.map((one) => (one.json === null ? null : JSON.parse(one.json)));
          expect(shown.map((one) => one?.person_id ?? 'hidden')).toEqual([
            awkwardOne,
            bare,
            'hidden',
            admin,
            erased,
            nobody,
            awkwardOne,
            awkwardOne,
            bare,
          ]);
          expect(shown.map((one) => one?.person?.id ?? null)).toEqual([
            awkwardOne,
            bare,
            null,
            null,
            null,
            null,
            awkwardOne,
            awkwardOne,
            bare,
          ]);
        }
      });

      it('reads the same changes and position as the plain page, at most `limit`, none past the newest', async () => {
        const ids = [nextPerson++, nextPerson++, nextPerson++];
        const { latest } = await feed().position();
        await unitOfWork().run((tx) => tx.changes.record(ids.map((id) => change(id))));

        const first = await readAll(feed().renderedPage(latest, 2, TODAY, NO_GRACE));
        expect(first.changes.map((c) => c.seq)).toEqual(
          (await feed().page(latest, 2)).changes.map((c) => c.seq),
        );
        const rest = await readAll(feed().renderedPage(first.changes[1].seq, 10, TODAY, NO_GRACE));
        expect(rest.changes.map((c) => (c.json === null ? null : JSON.parse(c.json).person_id))).toEqual([
          ids[2],
        ]);

        const none = await readAll(feed().renderedPage(rest.changes[0].seq, 10, TODAY, NO_GRACE));
        expect(none).toEqual({ position: await feed().position(), changes: [] });
      });
    });

    it('names the directory with an id that does not change', async () => {
      const { directoryId } = await feed().position();
      expect(directoryId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect((await feed().position()).directoryId).toBe(directoryId);
    });
  });

  describe('MembershipCalendar', () => {
    const FAR = '2200-01-01';

    async function addMember(memberships: { startDate: string; endDate: string | null }[]) {
      const tag = uniqueTag();
      await adapter().repositories.people.insertMany([
        newPerson({ lastName: tag, memberships: memberships.map((m) => ({ club: tag, kind: null, ...m })) }),
      ]);
      const [id] = await memberIdsTagged(adapter(), tag);
      const person = await adapter().repositories.people.findById(id);
      return { id, memberships: (person?.memberships ?? []).map((m) => m.id) };
    }

    const dueOf = (personId: number, today = FAR) =>
      unitOfWork().run(async (tx) =>
        (await tx.calendar.claimDue(today, 1_000_000)).filter((m) => m.personId === personId),
      );

    it('claims the memberships whose start or end has come, stamped with when they were written', async () => {
      const before = Date.now();
      const { id, memberships } = await addMember([
        { startDate: '2100-01-01', endDate: '2100-12-31' },
        { startDate: '2100-06-01', endDate: null },
        { startDate: '2300-01-01', endDate: null },
      ]);

      const due = await dueOf(id, '2100-06-01');
      expect(due.map((m) => [m.id, m.startDue, m.endDue])).toEqual([
        [memberships[0], true, false],
        [memberships[1], true, false],
      ]);
      expect(due[0]).toMatchObject({ personId: id, startDate: '2100-01-01', endDate: '2100-12-31' });
      expect(due[0].writtenAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(due[0].writtenAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
      // An end is due the day after the last day.
      expect((await dueOf(id, '2100-12-31')).find((m) => m.id === memberships[0])?.endDue).toBe(false);
      expect((await dueOf(id, '2101-01-01')).find((m) => m.id === memberships[0])?.endDue).toBe(true);
    });

    it('no longer claims what is marked done, start and end apart', async () => {
      const { id, memberships } = await addMember([{ startDate: '2100-01-01', endDate: '2100-01-31' }]);

      await unitOfWork().run((tx) => tx.calendar.markDone(memberships, []));
      expect((await dueOf(id)).map((m) => [m.startDue, m.endDue])).toEqual([[false, true]]);
      await unitOfWork().run((tx) => tx.calendar.markDone([], memberships));
      expect(await dueOf(id)).toEqual([]);
    });

    it('has nothing to announce of an erased person, whose kept memberships are statistics', async () => {
      const { id } = await addMember([
        { startDate: '2100-01-01', endDate: '2100-01-31' },
        { startDate: '2150-01-01', endDate: null },
      ]);
      expect(await dueOf(id)).toHaveLength(2);

      await unitOfWork().run((tx) => tx.people.erase([id]));

      expect(await dueOf(id)).toEqual([]);
      expect(await dueOf(id, '2400-01-01')).toEqual([]);
    });

    it('forgets what a failed unit of work marked', async () => {
      const { id, memberships } = await addMember([{ startDate: '2100-01-01', endDate: null }]);
      await expect(
        unitOfWork().run(async (tx) => {
          await tx.calendar.markDone(memberships, []);
          throw new Error('failed');
        }),
      ).rejects.toThrow('failed');
      expect(await dueOf(id)).toHaveLength(1);
    });

    it('lets units running at once claim each membership once between them', async () => {
      const { id } = await addMember(
        Array.from({ length: 6 }, (_, i) => ({ startDate: `2100-01-0${i + 1}`, endDate: null })),
      );
      const claims: number[][] = [];
      const claimAndMark = () =>
        unitOfWork().run(async (tx) => {
          const mine = (await tx.calendar.claimDue(FAR, 1_000_000)).filter((m) => m.personId === id);
          await new Promise((resolve) => setTimeout(resolve, 50));
          await tx.calendar.markDone(
            mine.map((m) => m.id),
            [],
          );
          claims.push(mine.map((m) => m.id));
        });

      await Promise.all([claimAndMark(), claimAndMark(), claimAndMark()]);

      const all = claims.flat();
      expect(all).toHaveLength(6);
      expect(new Set(all).size).toBe(6);
    });
  });
}
