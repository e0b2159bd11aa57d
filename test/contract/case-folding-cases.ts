import type { NewPerson } from '../../src/application/ports/person-repository';
import type { PersonFilter } from '../../src/domain/person-filter';

/**
 * SPEC §1's case-insensitive matching, as one table that every PersonRepository adapter must
 * answer alike: full case folding of NFC text, so final sigma, ß and text stored decomposed match.
 * Each person's last name is the test's tag, so a search scoped by it sees only these people.
 */
export function caseFoldingPeople(tag: string): Record<string, NewPerson> {
  const person = (firstName: string, email?: string): NewPerson => ({
    role: 'member',
    firstName,
    lastName: tag,
    chatId: null,
    plannerId: null,
    contacts: email === undefined ? [] : [{ kind: 'email', value: email, label: null }],
    memberships: [],
  });
  return {
    sisyphus: person('ΣΊΣΥΦΟΣ'),
    strasse: person('Straße', `STRASSE.${tag}@Example.ORG`),
    // Written decomposed, as stored before the service normalised text, or by another writer.
    zoeDecomposed: person('Zoe\u0308', `zoe\u0308.${tag}@example.org`),
    zoe: person('Zo\u00eb', `ZO\u00cb.${tag}@EXAMPLE.ORG`),
    ilker: person('İlker'),
    literal: person('50%_off\\'),
  };
}

export function caseFoldingCases(tag: string): [string, PersonFilter, string[]][] {
  const lower = tag.toLowerCase();
  return [
    ['σίσυφος finds ΣΊΣΥΦΟΣ (final sigma)', { firstName: 'σίσυφος' }, ['sisyphus']],
    ['ΣΊΣΥΦΟΣ finds itself', { firstName: 'ΣΊΣΥΦΟΣ' }, ['sisyphus']],
    ['a part of the name, in any case', { firstName: 'ΊΣΥ' }, ['sisyphus']],
    ['STRASSE finds Straße', { firstName: 'STRASSE' }, ['strasse']],
    ['ß finds the ss of Straße', { firstName: 'ß' }, ['strasse']],
    ['Zoë in NFC finds Zoë in NFC and in NFD', { firstName: 'Zo\u00eb' }, ['zoeDecomposed', 'zoe']],
    ['ZOË in NFD finds both', { firstName: 'ZOE\u0308' }, ['zoeDecomposed', 'zoe']],
    ['zoe does not find Zoë', { firstName: 'zoe' }, []],
    ['i̇lker (dotted i) finds İlker', { firstName: 'i\u0307lker' }, ['ilker']],
    ['% _ and \\ match themselves', { firstName: '%_OFF\\' }, ['literal']],
    ['_ is no wildcard', { firstName: '0_o' }, []],
    ['the email filter folds: strasse finds STRASSE', { email: `strasse.${lower}@example.org` }, ['strasse']],
    ['the email filter folds: ß finds STRASSE', { email: `straße.${lower}@example.org` }, ['strasse']],
    [
      'the email filter finds an email in NFC and in NFD',
      { email: `zoë.${lower}@example.org` },
      ['zoeDecomposed', 'zoe'],
    ],
    ['the email filter stays exact', { email: `zoë.${lower}@example` }, []],
  ];
}
