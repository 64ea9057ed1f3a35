// Preloaded into the server (`node --import ./bench/cpu-profile-hook.mjs dist/main.js`) by `run.mjs --profile`.
// The first SIGWINCH starts the V8 CPU profiler, the second stops it and writes $KURATE_BENCH_PROFILE_DIR/profile-N.cpuprofile
// (N = 1, 2, …; Chrome DevTools opens them). Signals, not process exit, so that only the measured window is profiled.
// SIGWINCH because Nest's enableShutdownHooks() closes the app on SIGUSR2, and SIGWINCH is ignored by default.
import { Session } from 'node:inspector';
import { renameSync, writeFileSync } from 'node:fs';

const dir = process.env.KURATE_BENCH_PROFILE_DIR ?? '.';
let count = 0;
const session = new Session();
session.connect();
let profiling = false;
const post = (method, params = {}) => new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));

process.on('SIGWINCH', async () => {
  try {
    if (!profiling) {
      profiling = true;
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
    } else {
      profiling = false;
      const { profile } = await post('Profiler.stop');
      const out = `${dir}/profile-${++count}.cpuprofile`;
      writeFileSync(`${out}.tmp`, JSON.stringify(profile));
      renameSync(`${out}.tmp`, out);
      process.stderr.write(`cpu profile written to ${out}\n`);
    }
  } catch (error) {
    process.stderr.write(`cpu profile failed: ${error}\n`);
  }
});
