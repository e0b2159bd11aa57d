/** Sorted keys and no ids: the two servers number contacts and memberships independently. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([key]) => key !== 'id')
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return Object.fromEntries(entries.map(([key, inner]) => [key, canonical(inner)]));
  }
  return value;
}

async function answer(url: string, path: string, token: string): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: response.status, body: canonical(await response.json()) };
}

/**
 * Asks both servers the same questions and returns the paths where the answers differ (ids
 * aside): a throughput ratio means nothing if the two do not do the same work.
 */
export async function compareAnswers(
  serviceUrl: string,
  baselineUrl: string,
  token: string,
  paths: string[],
): Promise<string[]> {
  const differing: string[] = [];
  for (const path of paths) {
    const [service, baseline] = await Promise.all([
      answer(serviceUrl, path, token),
      answer(baselineUrl, path, token),
    ]);
    if (JSON.stringify(service) !== JSON.stringify(baseline)) differing.push(path);
  }
  return differing;
}
