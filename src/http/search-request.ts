import type { Request } from 'express';
import type { PersonFilter } from '../domain/person-filter';
import { parseStandings } from '../domain/standing';
import { InvalidInput } from '../domain/errors';
import { hasParsedBody } from './body-parsing';
import { limitParam, MAX_ID } from './ids';
import { PersonFilterDto } from './person-filter.dto';
import { NOT_UTF8, undecodableParameter } from './undecodable-text';
import { codeSpelling, keysOf, quoteName, toValidDto } from './validation';

const PAGE_KEYS = ['limit', 'after'];
const FILTER_KEYS = keysOf(PersonFilterDto);
const BOOLEAN_FILTER_KEYS = keysOf(PersonFilterDto, 'isBoolean');

export interface SearchRequest {
  filter: PersonFilter;
  limit?: number;
  after?: number;
  /**
   * The filter as query parameters, wherever it came from: the next-page link carries it, so that
   * the link alone (a plain GET) fetches the next page of the same search.
   */
  filterParams: [string, string][];
}

/** The query string's parameters, each given once, as UTF-8 text; 400 otherwise. */
export function singleValues(req: Request): Record<string, string> {
  const search = req.originalUrl.indexOf('?');
  const undecodable = search === -1 ? null : undecodableParameter(req.originalUrl.slice(search + 1));
  if (undecodable !== null) throw new InvalidInput(`query parameter ${quoteName(undecodable)} ${NOT_UTF8}`);
  // No prototype: on a plain object `values.__proto__ = "1"` would vanish, and `?__proto__=1`
  // would pass as no filter at all instead of being refused as an unknown parameter.
  const values: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (Array.isArray(value)) throw new InvalidInput(`${quoteName(key)} is given more than once`);
    values[key] = String(value);
  }
  return values;
}

function wholeNumber(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new InvalidInput(`${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(raw);
}

// In a query string every value is text: only "true" and "false" are booleans.
function queryBoolean(raw: string): boolean | string {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return raw;
}

/** A valid filter as the query string spells it; every value the DTO accepts has a query form. */
function queryOf(dto: PersonFilterDto): [string, string][] {
  const values = dto as unknown as Record<string, unknown>;
  return FILTER_KEYS.flatMap((key) => (values[key] === undefined ? [] : [[key, String(values[key])]]));
}

function filterFromBody(body: unknown): Promise<PersonFilterDto> {
  return toValidDto(PersonFilterDto, body as object, (key) =>
    PAGE_KEYS.includes(key)
      ? `unknown key ${quoteName(key)} in the body; ${key} goes in the query string`
      : `unknown key ${quoteName(key)}; the filter keys are ${FILTER_KEYS.join(', ')}`,
  );
}

function filterFromQuery(filterParams: [string, string][]): Promise<PersonFilterDto> {
  const plain = Object.fromEntries(
    filterParams.map(([key, value]) => [
      key,
      BOOLEAN_FILTER_KEYS.includes(key) ? queryBoolean(value) : value,
    ]),
  );
  return toValidDto(
    PersonFilterDto,
    plain,
    (key) => `unknown query parameter ${quoteName(key)}; the filter keys are ${FILTER_KEYS.join(', ')}`,
  );
}

/**
 * The search a request asks for: the filter from the JSON body or from the query string (never
 * both), and the page (`limit`, `after`) always from the query string.
 */
export async function readSearchRequest(req: Request): Promise<SearchRequest> {
  const query = singleValues(req);
  const limit = limitParam(query.limit);
  const after = wholeNumber('after', query.after, 0, MAX_ID);
  const filterParams = Object.entries(query).filter(([key]) => !PAGE_KEYS.includes(key));

  let dto: PersonFilterDto;
  if (hasParsedBody(req)) {
    if (filterParams.length > 0) {
      throw new InvalidInput('send the filter either in the body or in the query string, not both');
    }
    dto = await filterFromBody(req.body);
  } else {
    dto = await filterFromQuery(filterParams);
  }
  const { standing, ...filter } = codeSpelling(dto);
  return {
    // Validated above: a list of standings by now.
    filter: standing === undefined ? filter : { ...filter, standing: parseStandings(standing) ?? [] },
    limit,
    after,
    filterParams: queryOf(dto),
  };
}
