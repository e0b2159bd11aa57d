/**
 * A Person as the API shows it: the view defined with its field list in the application layer,
 * where the database's rendering of searches (the read model) takes its fields from too.
 */
export { personView as mapPerson } from '../application/people/person-view';
