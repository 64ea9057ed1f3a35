// The page part of a logged-in page view is rendered once per role and kept (src/pages/page-view-cache.ts): the
// template and the partials it uses may depend on the user's role, never on who they are.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const VIEWS = path.resolve(import.meta.dirname, '../../views');

/** The template's text and the text of every partial it uses, through partials of partials. */
function withPartials(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return '';
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const partials = [...text.matchAll(/\{\{>\s*([\w-]+)/g)].map((m) => m[1]);
  return text + partials.map((name) => withPartials(path.join(VIEWS, 'partials', `${name}.hbs`), seen)).join('\n');
}

describe('the page part of a page view', () => {
  it('uses nothing of the user but their role', () => {
    const text = withPartials(path.join(VIEWS, 'page-view.hbs')).replace(/\{\{!--[\s\S]*?--\}\}/g, '');
    expect(text).not.toMatch(/csrfToken|currentUser\.(?:name|email|id)\b|\{\{>\s*csrf\b|searchQuery/);
    const uses = [...text.matchAll(/currentUser(?:\.(\w+))?/g)].map((m) => m[1] ?? '');
    for (const field of uses) expect(['', 'isAuthor', 'isAdmin', 'role']).toContain(field);
  });
});
