import type { Account } from '../../domain/account';
import type { ApiKey } from '../../domain/api-key';
import type { AuditEntry } from '../../domain/audit-entry';
import { NotFound } from '../../domain/errors';
import type { Grace } from '../../domain/grace';
import { isVisible, type Person } from '../../domain/person';
import type { Change } from '../ports/change-log';
import type { Clock } from '../ports/clock';
import type { UnitOfWork } from '../ports/unit-of-work';

export interface PersonData {
  exportedAt: Date;
  /** The day and grace the person's standing is told for (SPEC §10): when it was exported. */
  today: string;
  grace: Grace;
  person: Person;
  /** Without the password hash. */
  account: Omit<Account, 'passwordHash'> | null;
  /** Every key the account was issued; only the prefix of a token is kept, never the token. */
  keys: ApiKey[];
  /**
   * Entries about the person or their account, and those made by their account, oldest first;
   * those about someone else without that person's old and new values (GDPR Art. 15(4)).
   */
  audit: AuditEntry[];
  /** The change feed's entries about them, oldest first. */
  changes: Change[];
}

/**
 * Everything the directory holds about one person (SPEC §8), the answer to a subject access
 * request; read in one transaction, so that the parts agree with each other.
 */
export class ExportPersonData {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly grace: Grace,
  ) {}

  /**
   * `visibleOnly`: asked through the API (GET /people/:id/data), which shows only visible people:
   * an admin or someone erased is NotFound there, as for GET /people/:id.
   */
  execute({ id, visibleOnly = false }: { id: number; visibleOnly?: boolean }): Promise<PersonData> {
    return this.unitOfWork.run(async (tx) => {
      const person = await tx.people.findById(id);
      if (person === null || (visibleOnly && !isVisible(person))) {
        throw new NotFound(`no person has the id ${id}`);
      }
      const account = await tx.accounts.findByPersonId(id);
      const keys = account === null ? [] : await tx.keys.listAll(id);
      const ownKeys = new Set(keys.map((key) => key.id));
      const audit = (await tx.audit.list({ personId: id }))
        .reverse()
        .map((entry) => (isAbout(entry, id, ownKeys) ? entry : withoutValues(entry)));
      const changes = await tx.changes.listAbout(id);
      return {
        exportedAt: this.clock.now(),
        today: this.clock.today(),
        grace: this.grace,
        person,
        account:
          account === null
            ? null
            : {
                personId: account.personId,
                username: account.username,
                role: account.role,
                permissions: account.permissions,
                disabled: account.disabled,
              },
        keys,
        audit,
        changes,
      };
    });
  }
}

/** About the subject themselves: their record, their account or one of their keys. */
function isAbout(entry: AuditEntry, personId: number, ownKeys: Set<number>): boolean {
  if (entry.subjectType === 'api_key') return ownKeys.has(entry.subjectId);
  return entry.subjectId === personId && (entry.subjectType === 'person' || entry.subjectType === 'account');
}

/** What the subject did to someone else: which field, when, by which key; not that person's data. */
function withoutValues(entry: AuditEntry): AuditEntry {
  return { ...entry, oldValue: null, newValue: null };
}
