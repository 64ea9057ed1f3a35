import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// A plain .mjs module: scripts/ runs before anything is installed, so it is JavaScript with Node built-ins only.
import { buildDecision, fileHash, installDecision, readStamp, staleOutputs, treeHash } from '../../scripts/start-plan.mjs';

const dirs: string[] = [];
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'kurate-start-plan-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('npm start: when to install', () => {
  const installed = { lockHash: 'aaa', abi: '115' };

  it('installs when node_modules is missing, when nothing records an install, or without a lock', () => {
    expect(installDecision({ hasNodeModules: false, lockHash: 'aaa', abi: '115', stamp: installed })).toEqual({ install: true, reason: 'node_modules is missing' });
    expect(installDecision({ hasNodeModules: true, lockHash: 'aaa', abi: '115', stamp: null }).install).toBe(true);
    expect(installDecision({ hasNodeModules: true, lockHash: null, abi: '115', stamp: installed }).install).toBe(true);
  });

  it('installs when package-lock.json changed or Node’s module ABI did, and not otherwise', () => {
    expect(installDecision({ hasNodeModules: true, lockHash: 'bbb', abi: '115', stamp: installed })).toEqual({ install: true, reason: 'package-lock.json changed' });
    expect(installDecision({ hasNodeModules: true, lockHash: 'aaa', abi: '127', stamp: installed })).toEqual({ install: true, reason: 'Node changed (module ABI 115 → 127)' });
    expect(installDecision({ hasNodeModules: true, lockHash: 'aaa', abi: '115', stamp: installed })).toEqual({ install: false, reason: 'package-lock.json unchanged' });
  });
});

describe('npm start: when to build', () => {
  it('builds when dist/main.js is missing, no build is recorded, or the sources differ; not when they are the same', () => {
    expect(buildDecision({ hasEntry: false, sourcesHash: 'x', stamp: { sourcesHash: 'x' } })).toEqual({ build: true, reason: 'dist/main.js is missing' });
    expect(buildDecision({ hasEntry: true, sourcesHash: 'x', stamp: null }).build).toBe(true);
    expect(buildDecision({ hasEntry: true, sourcesHash: 'y', stamp: { sourcesHash: 'x' } })).toEqual({ build: true, reason: 'the sources changed' });
    expect(buildDecision({ hasEntry: true, sourcesHash: 'x', stamp: { sourcesHash: 'x' } })).toEqual({ build: false, reason: 'the sources are unchanged' });
  });

  it('hashes the contents and names of the sources, not their times', () => {
    const root = tree({ 'src/main.ts': 'a', 'src/auth/x.ts': 'b', 'tsconfig.json': '{}', 'views/page.hbs': 'v' });
    const before = treeHash(root, ['src', 'tsconfig.json']);
    // A touch (a checkout that changes nothing) builds nothing; a view is read at run time and is not an input.
    utimesSync(path.join(root, 'src/main.ts'), new Date(), new Date(Date.now() + 60_000));
    writeFileSync(path.join(root, 'views/page.hbs'), 'changed');
    expect(treeHash(root, ['src', 'tsconfig.json'])).toBe(before);
    // An edit, a new file, a rename and a changed tsconfig all do.
    writeFileSync(path.join(root, 'src/main.ts'), 'a2');
    const edited = treeHash(root, ['src', 'tsconfig.json']);
    expect(edited).not.toBe(before);
    writeFileSync(path.join(root, 'src/new.ts'), '');
    const added = treeHash(root, ['src', 'tsconfig.json']);
    expect(added).not.toBe(edited);
    rmSync(path.join(root, 'src/new.ts'));
    writeFileSync(path.join(root, 'src/renamed.ts'), 'b');
    rmSync(path.join(root, 'src/auth/x.ts'));
    expect(treeHash(root, ['src', 'tsconfig.json'])).not.toBe(edited);
    writeFileSync(path.join(root, 'tsconfig.json'), '{"strict":true}');
    expect(treeHash(root, ['src', 'tsconfig.json'])).not.toBe(edited);
  });

  it('reads a stamp, and treats a missing or broken one as none; hashes a missing file as null', () => {
    const root = tree({ 'good.json': '{"sourcesHash":"x"}', 'bad.json': '{"sourcesHa' });
    expect(readStamp(path.join(root, 'good.json'))).toEqual({ sourcesHash: 'x' });
    expect(readStamp(path.join(root, 'bad.json'))).toBeNull();
    expect(readStamp(path.join(root, 'none.json'))).toBeNull();
    expect(fileHash(path.join(root, 'none.json'))).toBeNull();
    expect(fileHash(path.join(root, 'good.json'))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('finds the compiled files a deleted source left in dist/', () => {
    const stale = staleOutputs(
      ['main.js', 'main.js.map', 'auth/old.js', 'auth/old.js.map', 'auth/login.js', '.kurate-build.json', 'cli/main.js'],
      new Set(['main.ts', 'auth/login.ts', 'cli/main.ts']),
    );
    expect(stale).toEqual(['auth/old.js', 'auth/old.js.map']);
  });
});
