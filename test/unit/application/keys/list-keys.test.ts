import { addAccount, principalOf } from '../../support/directory-fixtures';
import { keysFixture } from './keys-fixture';

describe('ListKeys', () => {
  it("lists the account's active keys oldest first, leaving out revoked, expired and others' keys", async () => {
    const { clock, directory, issue, listKeys } = keysFixture();
    const ann = await addAccount(directory, { username: 'ann', password: 'pw' });
    const bob = await addAccount(directory, { username: 'bob', password: 'pw' });

    const first = (await issue(ann.personId, { name: 'first' })).key;
    clock.advance(1000);
    const revoked = (await issue(ann.personId, { name: 'revoked' })).key;
    clock.advance(1000);
    await issue(ann.personId, { name: 'expiring', expiresInDays: 1 });
    clock.advance(1000);
    const last = (await issue(ann.personId, { name: 'last' })).key;
    await issue(bob.personId);
    await directory.keys.revoke(revoked.id, clock.now());
    clock.advance(24 * 60 * 60 * 1000);

    const keys = await listKeys.execute({ principal: principalOf(ann.personId, [], first.id) });
    expect(keys.map((k) => k.name)).toEqual(['first', 'last']);
    expect(keys.map((k) => k.id)).toEqual([first.id, last.id]);
  });
});
