import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

/** The oldest Node of each range the project supports: 20.19.0, 22.13.0, 24.11.0. */
function oldestOfEachRange(range: string): string[] {
  return range.split('||').map((part) => semver.minVersion(part.trim())!.version);
}

describe('Node versions: package.json, the README and the dependencies agree', () => {
  it('promises Node 20.19 and later in package.json and the README', () => {
    expect(oldestOfEachRange(pkg.engines.node)[0]).toBe('20.19.0');
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('Node.js 20.19');
  });

  it('installs no package whose engines exclude a supported Node (npm would print an EBADENGINE warning)', () => {
    const refused: string[] = [];
    for (const node of oldestOfEachRange(pkg.engines.node)) {
      for (const [where, info] of Object.entries(lock.packages)) {
        const wanted = Array.isArray(info.engines) ? undefined : info.engines?.node;
        if (where && wanted && !semver.satisfies(node, wanted)) refused.push(`${where}@${info.version} wants node ${wanted}, not ${node}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
