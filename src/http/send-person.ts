import type { Response } from 'express';
import { personView } from '../application/people/person-view';
import type { Grace } from '../domain/grace';
import type { Person } from '../domain/person';
import { entityTag } from './entity-tag';

/** A person as an answer: the view, its ETag, and the rule that a kept copy is revalidated. */
export function sendPerson(res: Response, person: Person, today: string, grace: Grace): void {
  res.setHeader('ETag', entityTag(person.version, today));
  // A client may keep a copy but must revalidate it (If-None-Match) before using it.
  res.setHeader('Cache-Control', 'private, no-cache');
  res.json(personView(person, today, grace));
}
