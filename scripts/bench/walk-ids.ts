/**
 * The ids of every visible person, by following keyset pages of 1000 through the API. It needs
 * nothing of the storage (works on PGlite, whose single connection the service holds) and checks
 * on the way that paging reaches everyone.
 */
export async function walkIds(url: string, token: string): Promise<number[]> {
  const ids: number[] = [];
  let after = 0;
  for (;;) {
    const response = await fetch(`${url}/people?limit=1000&after=${after}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (!response.ok)
      throw new Error(`GET /people?limit=1000 answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as { id: number }[];
    for (const person of page) ids.push(person.id);
    if (page.length < 1000) return ids;
    after = page[page.length - 1].id;
  }
}
