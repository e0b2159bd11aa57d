/**
 * The largest id of anything the directory stores: ids are PostgreSQL integers. A larger number
 * names nothing, and is refused where it comes in, before a query that would fail on it.
 */
export const MAX_ID = 2_147_483_647;
