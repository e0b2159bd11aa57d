import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../../src/version';

const changelog = readFileSync(join(__dirname, '../../CHANGELOG.md'), 'utf8');

describe('CHANGELOG.md', () => {
  it('opens with the release package.json names, dated, so that a release cannot ship without its entry', () => {
    const releases = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)];
    const [first] = releases.filter(([, name]) => name !== 'Unreleased');
    expect(first?.[1]).toBe(VERSION);
    expect(first?.[2]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('keeps to Keep a Changelog: only its kinds of change under a release', () => {
    const kinds = [...changelog.matchAll(/^### (.+)$/gm)].map(([, kind]) => kind);
    for (const kind of kinds)
      expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(kind);
  });
});
