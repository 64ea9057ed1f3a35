// The Node flags the server runs with: those of `npm run serve` in the built app's package.json (`node <flags>
// dist/main.js`), so that the bench measures the server as `npm start` and `npm run serve` run it, and a build
// compared with --app-root runs with its own.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** @param {string} root the app's checkout @returns {string[]} */
export function serverNodeFlags(root) {
  const serve = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts?.serve ?? '';
  const words = serve.trim().split(/\s+/);
  const entry = words.indexOf('dist/main.js');
  if (words[0] !== 'node' || entry < 0) throw new Error(`package.json's serve script is not "node [flags] dist/main.js": ${serve}`);
  return words.slice(1, entry);
}
