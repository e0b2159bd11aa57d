import bcrypt from 'bcrypt';
import { BcryptPasswordHasher } from '../../../../src/infrastructure/security/bcrypt-password-hasher';
import { PasswordCheckQueue } from '../../../../src/infrastructure/security/password-check-queue';

describe('BcryptPasswordHasher', () => {
  const hasher = new BcryptPasswordHasher(4);

  it('hashes with bcrypt at the configured cost and never keeps the password', async () => {
    const hash = await hasher.hash('correct horse');
    expect(hash).toMatch(/^\$2[aby]\$04\$/);
    expect(hash).not.toContain('correct horse');
  });

  it('accepts the right password and refuses a wrong one', async () => {
    const hash = await hasher.hash('correct horse');
    await expect(hasher.verify('correct horse', hash)).resolves.toBe(true);
    await expect(hasher.verify('correct hors', hash)).resolves.toBe(false);
  });

  it('answers false for an unknown user (no hash) after a real comparison', async () => {
    await expect(hasher.verify('anything', null)).resolves.toBe(false);
    await expect(hasher.verify('', null)).resolves.toBe(false);
  });

  it('compares an unknown user against a dummy hash of the same cost, so both take as long', async () => {
    const compare = jest.spyOn(bcrypt, 'compare');
    try {
      await hasher.verify('guess', null);
      await hasher.verify('guess', null);
      expect(compare).toHaveBeenCalledTimes(2);
      const dummies = compare.mock.calls.map((call) => call[1]);
      expect(dummies[0]).toMatch(/^\$2[aby]\$04\$/);
      // Computed once, not on every unknown user.
      expect(dummies[1]).toBe(dummies[0]);
    } finally {
      compare.mockRestore();
    }
  });

  it('refuses a password over 72 bytes whose first 72 bytes match, comparing it like a wrong one', async () => {
    const password = 'ä'.repeat(36); // 72 bytes in UTF-8
    const hash = await hasher.hash(password);
    const compare = jest.spyOn(bcrypt, 'compare');
    try {
      await expect(hasher.verify(`${password}x`, hash)).resolves.toBe(false);
      await expect(hasher.verify(`${password}ä`, hash)).resolves.toBe(false);
      // A full comparison all the same, against the dummy hash: as slow as any wrong password.
      expect(compare).toHaveBeenCalledTimes(2);
      expect(compare.mock.calls[0][1]).not.toBe(hash);
      expect(compare.mock.calls[0][1]).toMatch(/^\$2[aby]\$04\$/);
      await expect(hasher.verify(password, hash)).resolves.toBe(true);
    } finally {
      compare.mockRestore();
    }
  });

  it('refuses every password against a stored value that is not a bcrypt hash', async () => {
    await expect(hasher.verify('x', 'not-a-hash')).resolves.toBe(false);
  });

  it('runs no more hashes and comparisons at once than its limit, and finishes them all', async () => {
    const limited = new BcryptPasswordHasher(
      4,
      new PasswordCheckQueue({ concurrency: 2, maxWaitMs: 10_000 }),
    );
    const hash = await limited.hash('pw');
    let inFlight = 0;
    let most = 0;
    const original = bcrypt.compare.bind(bcrypt) as (data: string, encrypted: string) => Promise<boolean>;
    const compare = jest.spyOn(bcrypt, 'compare').mockImplementation((async (
      data: string,
      encrypted: string,
    ) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        return await original(data, encrypted);
      } finally {
        inFlight -= 1;
      }
    }) as never);
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          limited.verify(i % 2 === 0 ? 'pw' : 'wrong', i < 6 ? hash : null),
        ),
      );
      expect(answers).toEqual([true, false, true, false, true, false, false, false]);
      expect(most).toBe(2);
    } finally {
      compare.mockRestore();
    }
  });

  it("runs one username's checks one at a time, while another username's go alongside", async () => {
    const limited = new BcryptPasswordHasher(
      4,
      new PasswordCheckQueue({ concurrency: 2, maxWaitMs: 10_000 }),
    );
    const hash = await limited.hash('pw');
    const inFlight = new Map<string, number>();
    const most = new Map<string, number>();
    let together = 0;
    const original = bcrypt.compare.bind(bcrypt) as (data: string, encrypted: string) => Promise<boolean>;
    const compare = jest.spyOn(bcrypt, 'compare').mockImplementation((async (
      data: string,
      encrypted: string,
    ) => {
      const who = data.split(':')[0];
      inFlight.set(who, (inFlight.get(who) ?? 0) + 1);
      most.set(who, Math.max(most.get(who) ?? 0, inFlight.get(who) ?? 0));
      together = Math.max(
        together,
        [...inFlight.values()].reduce((a, b) => a + b, 0),
      );
      try {
        return await original(data, encrypted);
      } finally {
        inFlight.set(who, (inFlight.get(who) ?? 0) - 1);
      }
    }) as never);
    try {
      const check = (who: string, i: number) =>
        limited.verify(`${who}:${i}`, hash, { username: who, clientAddress: `10.0.0.${i}` });
      await Promise.all(Array.from({ length: 6 }, (_, i) => [check('ann', i), check('bob', i)]).flat());
      expect(most.get('ann')).toBe(1);
      expect(most.get('bob')).toBe(1);
      expect(together).toBe(2);
    } finally {
      compare.mockRestore();
    }
  });
});
