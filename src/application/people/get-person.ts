import { NotFound } from '../../domain/errors';
import { isVisible, type Person } from '../../domain/person';
import type { Clock } from '../ports/clock';
import type { PersonRepository } from '../ports/person-repository';

/** Who may read people is decided before this runs (the key's `read` permission, at the edge). */
export interface GetPersonInput {
  id: number;
}

export interface GetPersonOutput {
  today: string;
  person: Person;
}

export class GetPerson {
  constructor(
    private readonly people: PersonRepository,
    private readonly clock: Clock,
  ) {}

  async execute({ id }: GetPersonInput): Promise<GetPersonOutput> {
    const person = await this.people.findById(id);
    // An admin answers exactly like a missing person, so the API does not reveal who is an admin.
    if (person === null || !isVisible(person)) throw new NotFound(`person ${id} not found`);
    return { today: this.clock.today(), person };
  }
}
