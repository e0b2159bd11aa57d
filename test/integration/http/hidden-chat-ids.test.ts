import request from 'supertest';
import { CreateAccount } from '../../../src/application/accounts/create-account';
import { InMemorySpools } from '../../../src/infrastructure/in-memory/in-memory-spools';
import { ImportPeople } from '../../../src/application/people/import-people';
import { SystemClock } from '../../../src/infrastructure/system-clock';
import { fromArray } from '../../unit/support/import-fixture';
import type { PasswordHasher } from '../../../src/application/ports/password-hasher';
import { TYPES } from '../../../src/application/ports/tokens';
import type { UnitOfWork } from '../../../src/application/ports/unit-of-work';
import { createTestApp, newPerson, TEST_PASSWORD, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

describe.each(testDatabases)('chat_ids of hidden people on $name', (target) => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    token = await t.tokenWith(['read', 'write']);
  });
  afterAll(() => t.close());

  const unitOfWork = () => t.container.get<UnitOfWork>(TYPES.UnitOfWork);
  const patchChatId = (id: number, chatId: string) =>
    request(t.app)
      .patch(`/people/${id}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ 'person[chat_id]': chatId });
  const idsWithChatId = async (chatId: string) =>
    (
      await request(t.app).get('/people').query({ chat_id: chatId }).set('Authorization', `Bearer ${token}`)
    ).body.map((person: { id: number }) => person.id);

  it('lets a member take a chat_id that only a hidden admin holds, so PATCH reveals nobody', async () => {
    const chatId = uniqueName('chat');
    const [, memberId] = await t.addPeople([newPerson({ role: 'admin', chatId }), newPerson()]);
    expect(await idsWithChatId(chatId)).toEqual([]);

    const res = await patchChatId(memberId, chatId);

    expect(res.status).toBe(200);
    expect(res.body.chat_id).toBe(chatId);
    expect(await idsWithChatId(chatId)).toEqual([memberId]);
  });

  it('still answers 409 for a chat_id another member holds', async () => {
    const chatId = uniqueName('chat');
    const [holder, other] = await t.addPeople([newPerson({ chatId }), newPerson()]);
    const res = await patchChatId(other, chatId);
    expect(res.status).toBe(409);
    expect(await idsWithChatId(chatId)).toEqual([holder]);
  });

  it('frees a chat_id for members when its holder is made an admin (accounts create --admin --person-id)', async () => {
    const chatId = uniqueName('chat');
    const [promoted, other] = await t.addPeople([newPerson({ chatId }), newPerson()]);
    const hasher = t.container.get<PasswordHasher>(TYPES.PasswordHasher);
    await new CreateAccount(unitOfWork(), hasher).execute({
      username: uniqueName('admin'),
      password: TEST_PASSWORD,
      permissions: [],
      personId: promoted,
      admin: true,
    });
    expect(await idsWithChatId(chatId)).toEqual([]);

    expect((await patchChatId(other, chatId)).status).toBe(200);
    expect(await idsWithChatId(chatId)).toEqual([other]);
  });

  it('imports an admin with a member chat_id, and a member with an admin chat_id', async () => {
    const memberChat = uniqueName('chat');
    const adminChat = uniqueName('chat');
    const [memberId] = await t.addPeople([
      newPerson({ chatId: memberChat }),
      newPerson({ role: 'admin', chatId: adminChat }),
    ]);
    const record = (fields: Record<string, unknown>) => ({
      first_name: 'Imported',
      last_name: uniqueName('Person'),
      contacts: [],
      memberships: [],
      ...fields,
    });

    await new ImportPeople(unitOfWork(), new SystemClock('UTC'), new InMemorySpools()).execute({
      records: fromArray([
        record({ role: 'admin', chat_id: memberChat }),
        record({ role: 'member', chat_id: adminChat }),
        record({ role: 'admin', chat_id: adminChat }),
      ]),
    });

    expect(await idsWithChatId(memberChat)).toEqual([memberId]);
    expect(await idsWithChatId(adminChat)).toHaveLength(1);
  });

  it('still refuses an import of a member whose chat_id a member holds', async () => {
    const chatId = uniqueName('chat');
    await t.addPeople([newPerson({ chatId })]);
    await expect(
      new ImportPeople(unitOfWork(), new SystemClock('UTC'), new InMemorySpools()).execute({
        records: fromArray([
          { first_name: 'A', last_name: 'B', chat_id: chatId, contacts: [], memberships: [] },
        ]),
      }),
    ).rejects.toThrow('whom no record names');
  });
});
