// `npm start`: installs only when package-lock.json changed, builds only when the sources changed, then runs the
// server in this process (scripts/start-plan.mjs decides; docs/operations.md). Node built-ins only until the install.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, ROOT } from './build.mjs';
import { BUILD_INPUTS, BUILD_STAMP, buildDecision, fileHash, INSTALL_STAMP, installDecision, readStamp, SERVER_ENTRY, treeHash } from './start-plan.mjs';

const at = (file) => path.join(ROOT, file);
const abi = process.versions.modules;

const install = installDecision({
  hasNodeModules: existsSync(at('node_modules')),
  lockHash: fileHash(at('package-lock.json')),
  abi,
  stamp: readStamp(at(INSTALL_STAMP)),
});
if (install.install) {
  console.log(`Installing dependencies: ${install.reason}.`);
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const result = spawnSync(npm[0], [...npm[1], 'install', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`npm install failed (exit code ${result.status ?? result.signal}): the server was not started.`);
    process.exit(1);
  }
  // Hashed after the install, which may have rewritten the lock.
  writeFileSync(at(INSTALL_STAMP), `${JSON.stringify({ lockHash: fileHash(at('package-lock.json')), abi, installedAt: new Date().toISOString() })}\n`);
}

const compile = buildDecision({ hasEntry: existsSync(at(SERVER_ENTRY)), sourcesHash: treeHash(ROOT, BUILD_INPUTS), stamp: readStamp(at(BUILD_STAMP)) });
if (compile.build) {
  console.log(`Building: ${compile.reason}.`);
  try {
    build(ROOT);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
if (!install.install && !compile.build) console.log(`Up to date: no install (${install.reason}), no build (${compile.reason}).`);

await import(pathToFileURL(at(SERVER_ENTRY)).href);
