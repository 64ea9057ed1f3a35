import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// A plain .mjs module of the bench (it starts the server with these flags).
import { serverNodeFlags } from '../../bench/lib/server-flags.mjs';

const ROOT = path.resolve(__dirname, '../..');
const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;

/** The flags between `node` and the entry file in every `node … <entry>` of a text. */
function flagsBefore(text: string, entry: string): string[][] {
  return [...text.matchAll(new RegExp(`\\bnode((?:\\s+--[^\\s]+)*)\\s+${entry.replace(/[./]/g, '\\$&')}`, 'g'))].map((m) => m[1].trim().split(/\s+/).filter(Boolean));
}

/**
 * The server runs with a larger young generation than V8's default (docs/operations.md): every way of starting it
 * passes the same Node flags, and the bench starts it with them too (read from `npm run serve`).
 */
describe('the Node flags the server starts with', () => {
  const flags = serverNodeFlags(ROOT) as string[];

  it('are those of npm run serve, with the young generation set', () => {
    expect(flags).toContain('--max-semi-space-size=64');
  });

  it('are the same for npm start, npm run serve and the container script', () => {
    expect(flagsBefore(scripts.start, 'scripts/start.mjs')).toEqual([flags]);
    expect(flagsBefore(scripts.serve, 'dist/main.js')).toEqual([flags]);
    const container = readFileSync(path.join(ROOT, 'bin/container-build.sh'), 'utf8');
    const launches = flagsBefore(container, 'dist/main.js');
    expect(launches.length).toBe(2);
    for (const launch of launches) expect(launch).toEqual(flags);
  });
});
