import { Conflict, InvalidInput } from '../../domain/errors';
import { checkPassword } from '../../domain/password';
import type { Permission } from '../../domain/permission';
import type { Clock } from '../ports/clock';
import type { PasswordHasher } from '../ports/password-hasher';
import type { UnitOfWork } from '../ports/unit-of-work';
import { operatorChange } from '../accounts/operator-change';
import { DEMO_CLUBS, demoAdmins, demoPeople } from './demo-people';

export const DEMO_USERNAME = 'demo';
// manage too: the demo account signs in to the secretary's page (/desk), which needs it.
const DEMO_PERMISSIONS: Permission[] = ['read', 'write', 'manage'];

export interface CreateDemoDirectoryInput {
  /** The demo account's password, chosen by the caller (at random) and shown to the user. */
  password: string;
}

export interface CreateDemoDirectoryOutput {
  username: string;
  permissions: Permission[];
  people: number;
  admins: number;
  clubs: number;
}

/**
 * Fills an empty directory with a small, realistic one and adds an account to try the API with.
 * Refuses a directory that already holds people, so that demo data never mixes with real members.
 */
export class CreateDemoDirectory {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly passwords: PasswordHasher,
    private readonly clock: Clock,
  ) {}

  async execute({ password }: CreateDemoDirectoryInput): Promise<CreateDemoDirectoryOutput> {
    const problem = checkPassword(password);
    if (problem !== null) throw new InvalidInput(problem);
    const passwordHash = await this.passwords.hash(password);
    const today = this.clock.today();
    const people = demoPeople(today);
    const admins = demoAdmins();

    return this.unitOfWork.run(async (tx) => {
      if (await tx.accounts.findByUsername(DEMO_USERNAME)) {
        throw new Conflict(
          `the demo directory exists already (there is an account "${DEMO_USERNAME}"); ` +
            `to get a new password run: accounts password ${DEMO_USERNAME}`,
        );
      }
      if ((await tx.people.search({ filter: {}, today }, 1)).length > 0) {
        throw new Conflict('the directory already holds people; demo only fills an empty directory');
      }
      const ids = await tx.people.insertMany([...people, ...admins]);
      // Followers of the feed learn of the demo people as of any other (admins are never shown).
      await tx.changes.record(
        ids.map((personId) => ({ type: 'person.created', personId, fields: null, byKeyId: null })),
      );
      const account = await tx.accounts.create({
        username: DEMO_USERNAME,
        passwordHash,
        permissions: DEMO_PERMISSIONS,
        firstName: 'Demo',
        lastName: 'Account',
        role: 'admin',
      });
      await tx.audit.record([
        operatorChange('account.create', account, 'username', null, account.username),
        operatorChange('account.create', account, 'role', null, account.role),
        operatorChange('account.create', account, 'permissions', null, account.permissions.join(',')),
      ]);
      return {
        username: DEMO_USERNAME,
        permissions: DEMO_PERMISSIONS,
        people: people.length,
        admins: admins.length + 1,
        clubs: DEMO_CLUBS.length,
      };
    });
  }
}
