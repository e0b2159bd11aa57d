import request from 'supertest';
import type { TestApp } from '../../support/app';
import { uniqueName } from '../../support/app';

export interface FeedChange {
  type: string;
  fields: string[] | null;
  by: number | null;
}

/**
 * Requests of the secretary's one-record edits (SPEC §9, "Editing over HTTP") with the manage key,
 * and what they leave: the feed's changes and the audit entries of one person. The app and the key
 * are asked for when a request is made (a test file makes them in its beforeAll).
 */
export function recordRequests(made: () => { t: TestApp; manager: string }) {
  const as = (req: request.Test, key: string | null = made().manager) =>
    key === null ? req : req.set('Authorization', `Bearer ${key}`);
  const app = () => made().t.app;
  return {
    as,
    add: (body: unknown, key: string | null = made().manager) =>
      as(request(app()).post('/people'), key).send(body as object),
    put: (id: number | string, body: unknown, key: string | null = made().manager) =>
      as(request(app()).put(`/people/${id}/record`), key).send(body as object),
    renew: (id: number | string, body: unknown, key: string | null = made().manager) =>
      as(request(app()).post(`/people/${id}/memberships`), key).send(body as object),

    /** The feed's changes of one person, as GET /changes shows them. */
    async feedOf(personId: number): Promise<FeedChange[]> {
      const found: FeedChange[] = [];
      let query = '/changes?limit=1000';
      for (;;) {
        const res = await as(request(app()).get(query));
        expect(res.status).toBe(200);
        for (const c of res.body.changes as (FeedChange & { person_id: number })[]) {
          if (c.person_id === personId) found.push({ type: c.type, fields: c.fields, by: c.by });
        }
        if (!res.body.has_more) return found;
        query = `/changes?limit=1000&after=${encodeURIComponent(res.body.cursor)}`;
      }
    },

    /** The audit entries about one person, oldest first: what, and by which key. */
    async auditOf(personId: number) {
      const rows: { action: string; field: string | null; actor_key_id: unknown }[] =
        await made().t.database.dataSource.query(
          "SELECT action, field, actor_key_id FROM audit_entries WHERE subject_type = 'person' AND subject_id = $1 ORDER BY id",
          [personId],
        );
      return rows.map((r) => ({ action: r.action, field: r.field, key: Number(r.actor_key_id) }));
    },
  };
}

/** A record that adds a new member: unique names, number and email; `fields` override. */
export function newRecord(fields: Record<string, unknown> = {}) {
  return {
    member_number: uniqueName('M'),
    first_name: 'Ada',
    last_name: uniqueName('Lovelace'),
    contacts: [{ kind: 'email', value: `${uniqueName('ada')}@example.org`, label: 'home' }],
    memberships: [{ club: 'Northfield', kind: 'full', start_date: '2024-01-01', end_date: '2024-12-31' }],
    ...fields,
  };
}
