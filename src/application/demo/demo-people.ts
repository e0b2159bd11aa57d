import type { NewPerson } from '../ports/person-repository';

export const DEMO_CLUBS = [
  'Northfield Astronomical Society',
  'Riverside Amateur Astronomers',
  'Highland Dark Sky Club',
] as const;

const FIRST_NAMES = [
  'Olivia',
  'Liam',
  'Amara',
  'Noah',
  'Sofia',
  'Mateo',
  'Zoë',
  'Ethan',
  'Priya',
  'Lucas',
  'Hannah',
  'Kenji',
  'Chloe',
  'Samuel',
  'Fatima',
  'Oscar',
  'Ingrid',
  'Daniel',
  'Maya',
  'Gabriel',
  'Eleanor',
  'Tomás',
  'Grace',
  'Yusuf',
  'Isla',
  'Arjun',
  'Freya',
  'Leo',
  'Niamh',
  'Hugo',
  'Ava',
  'Rafael',
  'Elif',
  'Jonas',
  'Clara',
  'Ibrahim',
  'Lily',
  'Finn',
  'Mei',
  'Patrick',
  'Ruby',
  'Anton',
  'Esther',
  'Declan',
  'Nadia',
  'Felix',
  'Rosa',
  'William',
];
const LAST_NAMES = [
  'Patel',
  'Murphy',
  'Okafor',
  'Schmidt',
  'García',
  'Nakamura',
  'Brown',
  'Kowalski',
  'Haddad',
  'Jensen',
  "O'Brien",
  'Rossi',
  'Lindqvist',
  'Chen',
  'Dubois',
  'Novak',
  'Fernandes',
  'Wright',
  'Yilmaz',
  'Campbell',
  'Ahmed',
  'Müller',
  'Kelly',
  'Silva',
  'Andersen',
  'Moreau',
  'Singh',
  'Taylor',
  'Ivanova',
  'Evans',
];
const TOWNS = ['Northfield', 'Riverside', 'Glenmore', 'Ashby', 'Kingsbridge'];
const STREETS = ['Observatory Lane', 'Orion Road', 'Meridian Close', 'Telescope Row', 'Comet Street'];
const MEMBERSHIP_KINDS = ['full', 'family', 'student', 'junior', null];

/** The same sequence of numbers on every run, so that the demo directory is the same everywhere. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

function ascii(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

type DemoMembership = NewPerson['memberships'][number];

/**
 * Membership histories relative to `today`, so that the demo always shows current, past and
 * future members whatever the day it is run.
 */
function memberships(
  index: number,
  pick: <T>(items: readonly T[]) => T,
  between: (a: number, b: number) => number,
  today: string,
): DemoMembership[] {
  const club = DEMO_CLUBS[index % DEMO_CLUBS.length];
  const kind = pick(MEMBERSHIP_KINDS);
  const shape = index % 8;
  if (shape === 0) {
    // Left: the membership ended some time ago.
    const end = addDays(today, -between(20, 900));
    return [{ club, kind, startDate: addDays(end, -between(365, 2500)), endDate: end }];
  }
  if (shape === 1) {
    // Joins soon: a membership that starts in the future.
    return [{ club, kind, startDate: addDays(today, between(3, 60)), endDate: null }];
  }
  if (shape === 2) {
    // Rejoined: a past membership and a current one, in two clubs.
    const pastEnd = addDays(today, -between(400, 1500));
    const other = DEMO_CLUBS[(index + 1) % DEMO_CLUBS.length];
    return [
      { club: other, kind, startDate: addDays(pastEnd, -between(365, 1000)), endDate: pastEnd },
      { club, kind: 'full', startDate: addDays(today, -between(30, 300)), endDate: null },
    ];
  }
  if (shape === 3) {
    // A yearly membership that is current now and ends within the year.
    const start = addDays(today, -between(10, 300));
    return [{ club, kind, startDate: start, endDate: addDays(start, 364) }];
  }
  if (shape === 4) return [];
  return [{ club, kind, startDate: addDays(today, -between(30, 4000)), endDate: null }];
}

/** About fifty members of three clubs, with contacts and every kind of membership history. */
export function demoPeople(today: string): NewPerson[] {
  const random = seeded(20240917);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

  return FIRST_NAMES.map((firstName, index): NewPerson => {
    const lastName = LAST_NAMES[(index * 7) % LAST_NAMES.length];
    const contacts: NewPerson['contacts'] = [
      { kind: 'email', value: `${ascii(firstName)}.${ascii(lastName)}@example.org`, label: null },
    ];
    if (index % 3 !== 2) {
      contacts.push({
        kind: 'phone',
        value: `+44 7700 900${String(100 + index * 17).padStart(3, '0')}`,
        label: 'mobile',
      });
    }
    if (index % 4 === 1) {
      contacts.push({
        kind: 'address',
        value: `${between(1, 120)} ${pick(STREETS)}\n${pick(TOWNS)}\nNF${between(1, 9)} ${between(1, 9)}AB`,
        label: 'home',
      });
    }
    if (index % 10 === 5) {
      contacts.push({ kind: 'email', value: `${ascii(firstName)}@work.example.com`, label: 'work' });
    }
    return {
      role: 'member',
      firstName,
      lastName,
      chatId: index % 2 === 0 ? String(400_000_000 + index * 7919) : null,
      plannerId: index % 3 === 0 ? `planner-${1000 + index}` : null,
      contacts,
      memberships: memberships(index, pick, between, today),
    };
  });
}

/** The club's volunteers who run the directory: admins, hidden from every people result. */
export function demoAdmins(): NewPerson[] {
  return [
    ['Margaret', 'Hale', 'secretary'],
    ['Tom', 'Ridley', 'treasurer'],
    ['Aisha', 'Khan', 'it'],
  ].map(([firstName, lastName, office]) => ({
    role: 'admin',
    firstName,
    lastName,
    chatId: null,
    plannerId: null,
    contacts: [{ kind: 'email', value: `${office}@northfield-astro.example.org`, label: office }],
    memberships: [],
  }));
}
