// Summarises a .cpuprofile: top functions by self time, and by total time grouped per source file / package.
// Usage: node bench/profile-summary.mjs <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

export function summarise(profile, top = 25) {
  const { nodes, samples, timeDeltas } = profile;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < samples.length; i++) self.set(samples[i], (self.get(samples[i]) ?? 0) + (timeDeltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const label = (n) => {
    const f = n.callFrame;
    const url = f.url.replace(/^file:\/\//, '').replace(/^.*?\/(?=(?:dist|node_modules|src)\/)/, '');
    return `${f.functionName || '(anonymous)'} ${url ? `${url}:${f.lineNumber + 1}` : ''}`.trim();
  };
  const fn = new Map();
  const file = new Map();
  for (const [id, us] of self) {
    const node = byId.get(id);
    const key = label(node);
    fn.set(key, (fn.get(key) ?? 0) + us);
    const url = node.callFrame.url.replace(/^file:\/\//, '').replace(/^.*?\/(?=(?:dist|node_modules|src)\/)/, '');
    const group = url.startsWith('node_modules/') ? url.split('/').slice(0, url.split('/')[1].startsWith('@') ? 3 : 2).join('/') : url || `(${node.callFrame.functionName || 'native'})`;
    file.set(group, (file.get(group) ?? 0) + us);
  }
  // Inclusive ("total") time of the app's own functions (dist/): self time plus everything they called, counted once
  // per sample even when a function is on the stack more than once.
  const parent = new Map();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur);
      if (!/\/dist\//.test(node.callFrame.url) || /node_modules/.test(node.callFrame.url)) continue;
      const key = label(node);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const rows = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  return `Self time, top ${top} functions (${(total / 1e6).toFixed(1)} s sampled):\n${rows(fn).join('\n')}\n\nSelf time by file / package:\n${rows(file).join('\n')}\n\nTotal (inclusive) time of the app's functions (dist/):\n${rows(inclusive).join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(summarise(JSON.parse(readFileSync(process.argv[2], 'utf8')), Number(process.argv[3] ?? 25)));
}
