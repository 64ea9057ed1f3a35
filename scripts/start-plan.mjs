// What `npm start` must do before it starts the server: install when package-lock.json changed, build when the
// sources did. Pure decisions over hashes and stamps (test/unit/start-plan.test.ts), plus the hashing they need.
// Node built-ins only: on a fresh clone this runs before node_modules exists.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Written by scripts/start.mjs after a successful `npm install`. */
export const INSTALL_STAMP = 'node_modules/.kurate-install.json';
/** Written by scripts/build.mjs after a successful compile. */
export const BUILD_STAMP = 'dist/.kurate-build.json';
/** What the compiled server depends on. Views, public/ and migrations/ are read at run time and need no build. */
export const BUILD_INPUTS = ['src', 'tsconfig.json', 'nest-cli.json', 'package.json', 'package-lock.json'];
export const SERVER_ENTRY = 'dist/main.js';

/** SHA-256 of a file's bytes, or null when it does not exist. */
export function fileHash(file) {
  if (!existsSync(file)) return null;
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * One SHA-256 over the relative path and the bytes of every file under `inputs` (files or folders, recursively,
 * in a fixed order). Content, not mtimes: a `git checkout` that touches files without changing them builds nothing,
 * and a change with an old mtime (copied, restored) is still seen.
 */
export function treeHash(root, inputs) {
  const hash = createHash('sha256');
  const files = [];
  for (const input of inputs) {
    const full = path.join(root, input);
    if (!existsSync(full)) continue;
    if (readdirSafe(full)) {
      for (const entry of readdirSync(full, { recursive: true, withFileTypes: true })) {
        if (entry.isFile()) files.push(path.join(entry.parentPath, entry.name));
      }
    } else {
      files.push(full);
    }
  }
  for (const file of files.map((f) => path.relative(root, f).split(path.sep).join('/')).sort()) {
    hash.update(`${file}\0`).update(readFileSync(path.join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

function readdirSafe(full) {
  try {
    readdirSync(full);
    return true;
  } catch {
    return false;
  }
}

/** The parsed stamp, or null when it is missing or unreadable (which means: do the work). */
export function readStamp(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Whether to run `npm install`: when node_modules is missing, when package-lock.json differs from the one the last
 * install ran on, or when Node's native-module ABI changed since (argon2 is compiled for one).
 * @param {{ hasNodeModules: boolean, lockHash: string | null, abi: string, stamp: { lockHash?: string, abi?: string } | null }} state
 * @returns {{ install: boolean, reason: string }}
 */
export function installDecision({ hasNodeModules, lockHash, abi, stamp }) {
  if (!hasNodeModules) return { install: true, reason: 'node_modules is missing' };
  if (!stamp) return { install: true, reason: 'no record of an earlier npm start install' };
  if (lockHash === null) return { install: true, reason: 'package-lock.json is missing' };
  if (stamp.lockHash !== lockHash) return { install: true, reason: 'package-lock.json changed' };
  if (stamp.abi !== abi) return { install: true, reason: `Node changed (module ABI ${stamp.abi ?? '?'} → ${abi})` };
  return { install: false, reason: 'package-lock.json unchanged' };
}

/**
 * Whether to compile: when the server's entry is missing, or the sources (BUILD_INPUTS) differ from the ones the
 * last build compiled.
 * @param {{ hasEntry: boolean, sourcesHash: string, stamp: { sourcesHash?: string } | null }} state
 * @returns {{ build: boolean, reason: string }}
 */
export function buildDecision({ hasEntry, sourcesHash, stamp }) {
  if (!hasEntry) return { build: true, reason: `${SERVER_ENTRY} is missing` };
  if (!stamp) return { build: true, reason: 'no record of an earlier build' };
  if (stamp.sourcesHash !== sourcesHash) return { build: true, reason: 'the sources changed' };
  return { build: false, reason: 'the sources are unchanged' };
}

/**
 * Compiled files whose source is gone (a deleted or renamed .ts file), to delete after a build: `dist/x/y.js` and
 * `dist/x/y.js.map` belong to `src/x/y.ts`.
 * @param {string[]} distFiles paths relative to dist/, with forward slashes
 * @param {Set<string>} sourceFiles paths relative to src/, with forward slashes
 */
export function staleOutputs(distFiles, sourceFiles) {
  return distFiles.filter((file) => {
    const match = /^(.*)\.js(\.map)?$/.exec(file);
    return match !== null && !sourceFiles.has(`${match[1]}.ts`);
  });
}
