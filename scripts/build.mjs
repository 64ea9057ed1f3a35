// `npm run build`: compiles src/ into dist/ with TypeScript, deletes what a deleted source left there, and records
// what it compiled (dist/.kurate-build.json) so that `npm start` can skip the next build when nothing changed.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * The Nest project file (nest-cli.json): where the sources are and which tsconfig compiles them. The build is the
 * same `tsc` that `nest build` runs with the `tsc` builder, without the Nest CLI (its 12.x needs Node 22).
 */
function nestProject(root) {
  const project = JSON.parse(readFileSync(path.join(root, 'nest-cli.json'), 'utf8'));
  return { sourceRoot: project.sourceRoot ?? 'src', tsConfigPath: project.compilerOptions?.tsConfigPath ?? 'tsconfig.json' };
}

/** Compiles the server; throws when TypeScript reports errors (they are printed as tsc prints them). */
export function build(root = ROOT) {
  const { sourceRoot, tsConfigPath } = nestProject(root);
  // Hashed before compiling: a source edited during the compile is seen by the next start.
  const sourcesHash = treeHash(root, BUILD_INPUTS);
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, tsConfigPath)], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`TypeScript failed (exit code ${result.status ?? result.signal}): nothing was started.`);
  const dist = path.join(root, 'dist');
  for (const file of staleOutputs(relativeFiles(dist), new Set(relativeFiles(path.join(root, sourceRoot))))) rmSync(path.join(dist, file));
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
