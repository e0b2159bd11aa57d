import { auditEntryView } from '../audit/audit-entry-view';
import { goodStandingUntil, graceUntil, membershipStatus, personStanding } from '../../domain/standing';
import type { PersonData } from './export-person-data';

/**
 * The subject-access export as JSON (SPEC §8): what `people export-data` writes and
 * GET /people/:id/data answers, byte for byte the same. Fields listed one by one, so that a
 * password hash or a token hash can never be written by accident; `mask` shows a key's prefix as
 * the API shows tokens.
 */
export function personDataView(data: PersonData, mask: (prefix: string) => string) {
  const { person, account, today, grace } = data;
  return {
    exported_at: data.exportedAt.toISOString(),
    person: {
      id: person.id,
      member_number: person.memberNumber,
      first_name: person.firstName,
      last_name: person.lastName,
      chat_id: person.chatId,
      planner_id: person.plannerId,
      role: person.role,
      contacts: person.contacts.map((c) => ({ id: c.id, kind: c.kind, value: c.value, label: c.label })),
      memberships: person.memberships.map((m) => ({
        id: m.id,
        club: m.club.name,
        kind: m.kind,
        start_date: m.startDate,
        end_date: m.endDate,
        status: membershipStatus(m, today, grace),
        grace_until: graceUntil(m, grace),
      })),
      standing: personStanding(person.memberships, today, grace),
      good_standing_until: goodStandingUntil(person.memberships, today, grace),
      erased: person.erased,
    },
    account:
      account === null
        ? null
        : {
            username: account.username,
            role: account.role,
            permissions: account.permissions,
            disabled: account.disabled,
          },
    keys: data.keys.map((key) => ({
      id: key.id,
      token: mask(key.prefix),
      name: key.name,
      permissions: key.permissions,
      created_at: key.createdAt.toISOString(),
      expires_at: key.expiresAt?.toISOString() ?? null,
      last_used_at: key.lastUsedAt?.toISOString() ?? null,
      revoked_at: key.revokedAt?.toISOString() ?? null,
    })),
    audit: data.audit.map(auditEntryView),
    changes: data.changes.map((change) => ({
      seq: change.seq,
      at: change.at.toISOString(),
      type: change.type,
      fields: change.fields,
      by: change.byKeyId,
    })),
  };
}

export type PersonDataView = ReturnType<typeof personDataView>;
