import { writeFile } from 'node:fs/promises';
import { Random } from './random';

/** One person in the import format of SPEC §5 (what `npm run cli -- import FILE` reads). */
export interface ImportRecord {
  first_name: string;
  last_name: string;
  chat_id: string | null;
  planner_id: string | null;
  role: 'member' | 'admin';
  contacts: { kind: 'email' | 'phone' | 'address'; value: string; label: string | null }[];
  memberships: { club: string; kind: string | null; start_date: string; end_date: string | null }[];
}

/** Values the scenarios look up, taken from visible people so that every lookup finds someone. */
export interface Probes {
  emails: string[];
  chatIds: string[];
  lastNameFragments: string[];
}

export interface GeneratedDirectory {
  file: string;
  people: number;
  visible: number;
  admins: number;
  contacts: number;
  memberships: number;
  probes: Probes;
}

const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Alice',
  'Amir',
  'Anna',
  'Arjun',
  'Ben',
  'Carla',
  'Caroline',
  'Chen',
  'Chloe',
  'Clara',
  'Daniel',
  'David',
  'Edwin',
  'Elena',
  'Emma',
  'Eric',
  'Fatima',
  'Felix',
  'Fiona',
  'George',
  'Grace',
  'Hannah',
  'Harriet',
  'Henrietta',
  'Hugo',
  'Ines',
  'Isaac',
  'Ivan',
  'Jack',
  'James',
  'Jane',
  'Jocelyn',
  'Johannes',
  'Julia',
  'Karl',
  'Katherine',
  'Laura',
  'Leo',
  'Lena',
  'Liam',
  'Lucy',
  'Maria',
  'Mark',
  'Mei',
  'Nancy',
  'Nicolaus',
  'Nina',
  'Noah',
  'Olivia',
  'Omar',
  'Patrick',
  'Paul',
  'Pierre',
  'Priya',
  'Rachel',
  'Ravi',
  'Rosa',
  'Sam',
  'Sara',
  'Sofia',
  'Subrahmanyan',
  'Tariq',
  'Tom',
  'Urbain',
  'Vera',
  'Walter',
  'William',
  'Xavier',
  'Yuki',
  'Zoe',
];

const COMMON_SURNAMES = [
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Williams',
  'Wilson',
  'Johnson',
  'Davies',
  'Robinson',
  'Wright',
  'Thompson',
  'Evans',
  'Walker',
  'White',
  'Roberts',
  'Green',
  'Hall',
  'Wood',
  'Jackson',
  'Clarke',
  'Patel',
  'Khan',
  'Lewis',
  'James',
  'Phillips',
  'Mason',
  'Mitchell',
  'Rose',
  'Davis',
  'Rodriguez',
  'Cox',
  'Alexander',
  'Garcia',
  'Campbell',
  'Johnston',
  'Moore',
  'Lee',
  'Martin',
  'Murphy',
  'Nguyen',
  'Herschel',
  'Leavitt',
  'Hubble',
  'Kepler',
  'Galilei',
  'Copernicus',
  'Cannon',
  'Rubin',
  'Sagan',
  'Chandrasekhar',
  'Halley',
  'Messier',
  'Brahe',
  'Huygens',
  'Cassini',
  'Bell',
  'Burnell',
  'Payne',
  "O'Brien",
  'Müller',
  'Schmidt',
  'Dubois',
  'Rossi',
  'Novak',
  'Kowalski',
  'Hansen',
  'Larsen',
  'Silva',
];

// Synthetic surnames from syllables give the long tail of rare names a real directory has, so
// that substring searches range from hundreds of matches to a handful.
const SYLLABLES_START = [
  'Ab',
  'Bar',
  'Cal',
  'Dor',
  'El',
  'Fen',
  'Gar',
  'Hal',
  'Is',
  'Jor',
  'Kal',
  'Lin',
  'Mor',
  'Nor',
  'Ost',
  'Pel',
  'Quin',
  'Ras',
  'Sel',
  'Tor',
  'Ul',
  'Val',
  'Wen',
  'Yar',
  'Zel',
];
const SYLLABLES_MIDDLE = ['a', 'e', 'i', 'o', 'u', 'an', 'er', 'in', 'or', 'ul', 'ev', 'ak'];
const SYLLABLES_END = [
  'berg',
  'by',
  'dottir',
  'enko',
  'escu',
  'feld',
  'ford',
  'gaard',
  'ham',
  'ić',
  'ley',
  'man',
  'mann',
  'ov',
  'ova',
  'quist',
  'rud',
  'sen',
  'son',
  'stein',
  'ton',
  'vic',
  'wick',
  'worth',
];

const CLUBS = [
  'Northern Astronomical Society',
  'City Observers',
  'Deep Sky Group',
  'Solar Section',
  'Variable Star Circle',
  'Lunar Mappers',
  'Astrophotography Guild',
  'Meteor Watch',
  'Young Astronomers',
  'Telescope Makers',
  'Radio Astronomy Group',
  'Dark Sky Campaign',
];

const MEMBERSHIP_KINDS = ['full', 'family', 'student', 'honorary', null];
const STREETS = [
  'High Street',
  'Station Road',
  'Church Lane',
  'Observatory Road',
  'Mill Lane',
  'Park Avenue',
];
const TOWNS = ['Leeds', 'York', 'Durham', 'Bath', 'Exeter', 'Norwich', 'Lancaster', 'Cardiff'];
const DOMAINS = ['example.org', 'example.com', 'mail.example.net', 'stars.example'];

const DAY = 86_400_000;

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Unique for every index below 2^32: multiplication by an odd constant is a bijection mod 2^32. */
function chatIdOf(index: number): string {
  return String(Math.imul(index + 1, 2654435761) >>> 0);
}

function surname(random: Random): string {
  if (random.chance(0.6)) return random.pick(COMMON_SURNAMES);
  return random.pick(SYLLABLES_START) + random.pick(SYLLABLES_MIDDLE) + random.pick(SYLLABLES_END);
}

/** Mixed case for some stored addresses, so that lookups must really fold case. */
function withCase(random: Random, email: string): string {
  if (!random.chance(0.3)) return email;
  return email.replace(
    /(^|[.@])([a-z])/g,
    (_match, sep: string, letter: string) => sep + letter.toUpperCase(),
  );
}

function memberships(random: Random, today: number): ImportRecord['memberships'] {
  const lapsed = random.chance(0.3);
  const clubs = random.sample(CLUBS, random.int(3, 5));
  return clubs.map((club, position) => {
    const kind = random.pick(MEMBERSHIP_KINDS);
    // A lapsed person has only past or future memberships; everyone else has at least one current.
    const shape = lapsed
      ? random.chance(0.75)
        ? 'past'
        : 'future'
      : position === 0
        ? 'current'
        : random.pick(['current', 'past', 'past', 'future']);
    if (shape === 'current') {
      const start = today - random.int(0, 3000) * DAY;
      const end = random.chance(0.5) ? null : today + random.int(0, 700) * DAY;
      return { club, kind, start_date: isoDate(start), end_date: end === null ? null : isoDate(end) };
    }
    if (shape === 'past') {
      const start = today - random.int(400, 6000) * DAY;
      const end = Math.min(start + random.int(30, 1100) * DAY, today - DAY);
      return { club, kind, start_date: isoDate(start), end_date: isoDate(end) };
    }
    const start = today + random.int(1, 200) * DAY;
    const end = random.chance(0.5) ? null : start + 365 * DAY;
    return { club, kind, start_date: isoDate(start), end_date: end === null ? null : isoDate(end) };
  });
}

function contacts(random: Random, index: number, first: string, last: string): ImportRecord['contacts'] {
  const local = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
  const list: ImportRecord['contacts'] = [
    { kind: 'email', value: withCase(random, `${local}.${index + 1}@${random.pick(DOMAINS)}`), label: null },
  ];
  if (random.chance(0.15)) {
    list.push({ kind: 'email', value: `${local[0]}${index + 1}@work.example.com`, label: 'work' });
  }
  if (random.chance(0.75)) {
    const number = String(random.int(0, 9_999_999)).padStart(7, '0');
    list.push({ kind: 'phone', value: `+44 7${number.slice(0, 3)} ${number.slice(3)}`, label: 'mobile' });
  }
  if (random.chance(0.6)) {
    const address = `${random.int(1, 250)} ${random.pick(STREETS)}\n${random.pick(TOWNS)}\nAB${random.int(1, 99)} ${random.int(1, 9)}XY`;
    list.push({ kind: 'address', value: address, label: random.chance(0.5) ? 'home' : null });
  }
  return list;
}

/** What a client types to find someone by last name: 3 to 5 letters of it, from anywhere, half in lower case. */
export function fragmentOf(random: Random, lastName: string): string {
  const length = Math.min(lastName.length, random.int(3, 5));
  const start = random.int(0, lastName.length - length);
  const fragment = lastName.slice(start, start + length);
  return random.chance(0.5) ? fragment.toLowerCase() : fragment;
}

/**
 * Writes a directory of `count` people, always the same for the same count, seed and date:
 * membership dates are placed around `today` so that about 70% of people are active.
 */
export async function generateDirectory(
  file: string,
  count: number,
  options: { seed?: number; today?: Date; probes?: number } = {},
): Promise<GeneratedDirectory> {
  const random = new Random(options.seed ?? 20240601);
  const today = Date.parse(isoDate((options.today ?? new Date()).getTime()));
  const probeCount = options.probes ?? 2000;
  const probeEvery = Math.max(1, Math.floor(count / probeCount));
  const records: ImportRecord[] = [];
  const probes: Probes = { emails: [], chatIds: [], lastNameFragments: [] };
  let admins = 0;
  let contactCount = 0;
  let membershipCount = 0;
  for (let index = 0; index < count; index++) {
    const role = random.chance(0.01) ? 'admin' : 'member';
    const first = random.pick(FIRST_NAMES);
    const last = surname(random);
    const record: ImportRecord = {
      first_name: first,
      last_name: last,
      chat_id: random.chance(0.6) ? chatIdOf(index) : null,
      planner_id: random.chance(0.3) ? `planner-${index + 1}` : null,
      role,
      contacts: contacts(random, index, first, last),
      memberships: memberships(random, today),
    };
    records.push(record);
    if (role === 'admin') admins++;
    contactCount += record.contacts.length;
    membershipCount += record.memberships.length;
    if (role === 'member' && index % probeEvery === 0) {
      const email = record.contacts[0].value;
      // Half the lookups use another case than the stored one.
      probes.emails.push(random.chance(0.5) ? email.toUpperCase() : email.toLowerCase());
      if (record.chat_id !== null) probes.chatIds.push(record.chat_id);
      probes.lastNameFragments.push(fragmentOf(random, last));
    }
  }
  await writeFile(file, JSON.stringify(records));
  return {
    file,
    people: count,
    visible: count - admins,
    admins,
    contacts: contactCount,
    memberships: membershipCount,
    probes,
  };
}
