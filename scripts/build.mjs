// `npm run build`: compiles src/ into dist/ with TypeScript, deletes what a deleted source left there, and records
// what it compiled (dist/.kurate-build.json) so that `npm start` can skip the next build when nothing changed.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INPUTS, BUILD_STAMP, staleOutputs, treeHash } from './start-plan.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function relativeFiles(dir) {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
  } catch {
    return [];
  }
}

/** Compiles the server; throws when TypeScript reports errors (they are printed as tsc prints them). */
export function build(root = ROOT) {
  // Hashed before compiling: a source edited during the compile is seen by the next start.
  const sourcesHash = treeHash(root, BUILD_INPUTS);
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`TypeScript failed (exit code ${result.status ?? result.signal}): nothing was started.`);
  const dist = path.join(root, 'dist');
  for (const file of staleOutputs(relativeFiles(dist), new Set(relativeFiles(path.join(root, 'src'))))) rmSync(path.join(dist, file));
  writeFileSync(path.join(root, BUILD_STAMP), `${JSON.stringify({ sourcesHash, builtAt: new Date().toISOString() })}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    build();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
