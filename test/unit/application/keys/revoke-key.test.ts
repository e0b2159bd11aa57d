import { NotFound, Unauthenticated } from '../../../../src/domain/errors';
import { addAccount, principalOf } from '../../support/directory-fixtures';
import { keysFixture } from './keys-fixture';

async function twoAccounts() {
  const fixture = keysFixture();
  const ann = await addAccount(fixture.directory, { username: 'ann', password: 'pw' });
  const bob = await addAccount(fixture.directory, { username: 'bob', password: 'pw' });
  const annKey = await fixture.issue(ann.personId);
  const annOther = await fixture.issue(ann.personId);
  const bobKey = await fixture.issue(bob.personId);
  return {
    ...fixture,
    ann,
    annKey,
    annOther,
    bobKey,
    principal: principalOf(ann.personId, [], annKey.key.id),
  };
}

describe('RevokeKey', () => {
  it('revokes the key of the request, which is then refused', async () => {
    const { revokeKey, authenticate, principal, annKey, clock } = await twoAccounts();
    const revoked = await revokeKey.execute({ principal });
    expect(revoked).toMatchObject({ id: annKey.key.id, revokedAt: clock.now() });
    await expect(authenticate.execute({ token: annKey.token })).rejects.toThrow(
      'invalid, revoked or expired API key',
    );
  });

  it('revokes another key of the same account by id and leaves the request key working', async () => {
    const { revokeKey, authenticate, principal, ann, annKey, annOther } = await twoAccounts();
    await revokeKey.execute({ principal, keyId: annOther.key.id });
    await expect(authenticate.execute({ token: annOther.token })).rejects.toThrow(
      new Unauthenticated('invalid, revoked or expired API key'),
    );
    await expect(authenticate.execute({ token: annKey.token })).resolves.toEqual({
      accountId: ann.personId,
      keyId: annKey.key.id,
      permissions: ['read', 'write'],
    });
  });

  it('answers a key of another account as not found and leaves it working', async () => {
    const { revokeKey, authenticate, principal, bobKey } = await twoAccounts();
    await expect(revokeKey.execute({ principal, keyId: bobKey.key.id })).rejects.toThrow(
      new NotFound(`key ${bobKey.key.id} not found`),
    );
    await expect(authenticate.execute({ token: bobKey.token })).resolves.toEqual({
      accountId: bobKey.key.accountId,
      keyId: bobKey.key.id,
      permissions: ['read', 'write'],
    });
  });

  it('answers an unknown key id as not found', async () => {
    const { revokeKey, principal } = await twoAccounts();
    await expect(revokeKey.execute({ principal, keyId: 9999 })).rejects.toThrow(
      new NotFound('key 9999 not found'),
    );
  });

  it('answers a key already revoked as not found and keeps its first revocation time', async () => {
    const { revokeKey, directory, principal, annOther, clock } = await twoAccounts();
    await revokeKey.execute({ principal, keyId: annOther.key.id });
    const firstRevokedAt = clock.now();
    clock.advance(5000);
    await expect(revokeKey.execute({ principal, keyId: annOther.key.id })).rejects.toThrow(NotFound);
    expect((await directory.keys.findById(annOther.key.id))?.revokedAt).toEqual(firstRevokedAt);
  });

  it('records the revocation in the audit log with who did it', async () => {
    const { revokeKey, directory, ann, principal, annOther } = await twoAccounts();
    await revokeKey.execute({ principal, keyId: annOther.key.id });
    const entries = await directory.audit.list({ personId: ann.personId });
    expect(entries[0]).toMatchObject({
      action: 'key.revoke',
      subjectType: 'api_key',
      subjectId: annOther.key.id,
      actorAccountId: ann.personId,
      actorKeyId: principal.keyId,
    });
  });
});
