import type { Club } from './club';

export interface Membership {
  id: number;
  club: Club;
  kind: string | null;
  /** Calendar dates, `YYYY-MM-DD`. */
  startDate: string;
  endDate: string | null;
}

/**
 * Current means `startDate <= today <= endDate`, both ends inclusive, an empty end open-ended.
 * ISO calendar dates compare correctly as strings.
 */
export function isCurrent(membership: Pick<Membership, 'startDate' | 'endDate'>, today: string): boolean {
  return membership.startDate <= today && (membership.endDate === null || today <= membership.endDate);
}
