/**
 * The rows of an UPDATE or DELETE ... RETURNING: TypeORM answers those as `[rows, rowCount]`,
 * and SELECT and INSERT as the rows alone.
 */
// biome-ignore lint/suspicious/noExplicitAny: rows as the driver gives them
export function returned(result: any): any[] {
  return Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
    ? result[0]
    : result;
}
