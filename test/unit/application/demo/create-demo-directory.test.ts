import { CreateDemoDirectory } from '../../../../src/application/demo/create-demo-directory';
import { Conflict } from '../../../../src/domain/errors';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { addPerson } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';
import { FakePasswordHasher } from '../../support/fake-password-hasher';

function fixture() {
  const clock = new FakeClock();
  const directory = new InMemoryDirectory(clock);
  return { directory, demo: new CreateDemoDirectory(directory.unitOfWork, new FakePasswordHasher(), clock) };
}

describe('CreateDemoDirectory', () => {
  it('fills an empty directory and adds the demo account with read, write and manage, for the desk', async () => {
    const { directory, demo } = fixture();

    const result = await demo.execute({ password: 'random password' });

    expect(result).toMatchObject({
      username: 'demo',
      permissions: ['read', 'write', 'manage'],
      clubs: 3,
      admins: 4,
    });
    expect(await directory.people.count()).toBe(result.people + result.admins);
    expect(await directory.accounts.findByUsername('demo')).toMatchObject({
      role: 'admin',
      permissions: ['read', 'write', 'manage'],
      passwordHash: 'hashed:random password',
    });
    // Everyone the demo wrote is in the feed, once, made by the command line.
    const created = directory.store.state.changes;
    expect(created).toHaveLength(result.people + result.admins - 1);
    expect(created.every((c) => c.type === 'person.created' && c.byKeyId === null)).toBe(true);
    expect(new Set(created.map((c) => c.personId)).size).toBe(created.length);
  });

  it('refuses to run twice, and refuses a directory that already holds people', async () => {
    const { directory, demo } = fixture();
    await demo.execute({ password: 'random password' });
    await expect(demo.execute({ password: 'another password' })).rejects.toThrow(
      /demo directory exists already/,
    );

    const other = fixture();
    await addPerson(other.directory);
    await expect(other.demo.execute({ password: 'random password' })).rejects.toThrow(Conflict);
    expect(await other.directory.people.count()).toBe(1);
    expect(await directory.accounts.findByUsername('demo')).toMatchObject({
      passwordHash: 'hashed:random password',
    });
  });
});
