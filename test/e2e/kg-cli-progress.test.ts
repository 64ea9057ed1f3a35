import { Writable } from 'node:stream';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runExtract, type ExtractTerminal } from '../../src/cli/kg-commands.js';
import { KurateClient } from '../../src/cli/kurate-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker } from './kg-test-helpers.js';

/** A stream that keeps what is written to it; `isTTY` makes cli-progress draw on it as on a terminal. */
class ScreenStream extends Writable {
  readonly columns = 120;
  raw = '';
  constructor(readonly isTTY: boolean) {
    super({ decodeStrings: false });
  }
  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.raw += chunk.toString();
    done();
  }
  /** What a reader sees line by line: every redraw of the bar (cursor back to column 1) as a line of its own. */
  get lines(): string[] {
    return this.raw
      .split(/\x1B\[1G|\n/)
      .map((line) => line.replace(/\x1B(?:\[[0-9;?]*[A-Za-z]|[78])/g, ''))
      .filter((line) => line !== '');
  }
}

const ESTIMATE = /^About (\d) extraction calls \(builtin, kurate-builtin-v9\) for \1 of \1 included pages; 0 unchanged chunks cost nothing\.$/;
const HINT = 'No job has started for 500 ms: is a worker running (KURATE_ROLE=worker or all)? Still waiting; Ctrl-C stops waiting, not the jobs.';

/**
 * `kurate kg extract` as a user at a terminal sees it: the estimate, then a progress bar on stderr, and a hint
 * when no job starts (no worker). runExtract is what bin/kurate runs, given stand-ins for the terminal's streams.
 */
describe('kurate kg extract at a terminal', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let api: KurateClient;

  const terminal = (stderr: ScreenStream, stdout: ScreenStream): ExtractTerminal => ({ stdout, stderr, confirm: null, stallHintMs: 500 });

  beforeAll(async () => {
    t = await startTestApp({ listen: true, env: { KURATE_JOB_POLL_SECONDS: '0.5' } });
    admin = await t.as('admin');
    api = new KurateClient(t.baseUrl!, (await t.user('admin')).token, { needsAdmin: true });
    for (const [title, cluster] of [['Install', 'docs'], ['Upgrade', 'docs'], ['Backup', 'docs'], ['Rotate', 'ops'], ['Restore', 'ops']]) {
      await admin.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\n# ${title}\n\n${title} the [[Kurate Server]] on [[Debian]]: a short guide.\n` }).expect(201);
    }
    await setPolicy(admin, 'docs', 'include');
    await setPolicy(admin, 'ops', 'include');
    // As if the pages were there before extraction existed: included, but no job was ever enqueued for them.
    await t.dataSource.query('DELETE FROM pgboss.job');
  }, 120_000);
  afterAll(() => t?.close());

  it('draws a bar of pages done out of the total, says when no job starts, and goes on once a worker runs', async () => {
    const stderr = new ScreenStream(true);
    const stdout = new ScreenStream(false);
    // No worker yet: the jobs wait.
    const run = runExtract(api, { cluster: 'docs', yes: true, wait: true, pollMs: 100 }, terminal(stderr, stdout));
    await vi.waitFor(() => expect(stderr.lines).toContain(HINT), { timeout: 10_000 });
    await startWorker(t);
    await run;

    const lines = stderr.lines;
    expect(lines[0]).toMatch(ESTIMATE);
    expect(lines[0]).toContain('About 3 extraction calls');
    expect(lines[1]).toMatch(/^Enqueued 3 pages; request [0-9a-f-]{36}\.$/);
    const hint = lines.indexOf(HINT);
    expect(lines.filter((line) => line === HINT)).toHaveLength(1);
    const before = lines.slice(2, hint);
    const after = lines.slice(hint + 1);
    expect(before.length).toBeGreaterThan(0);
    // While nothing moves the time left is unknown (cli-progress alone would print "NFs left").
    for (const line of before) expect(line).toMatch(/^Extracting \[░{40}\] 0\/3 pages \| 0 running, 0 failed \| (0s|\?) left$/);
    expect(before.at(-1)).toMatch(/\| \? left$/);
    expect(after.at(-1)).toMatch(/^Extracting \[█{40}\] 3\/3 pages \| 0 running, 0 failed \| 0s left$/);
    // Drawn as a terminal bar: the cursor hidden while it runs, and shown again at the end.
    expect(stderr.raw.startsWith('About')).toBe(true);
    expect(stderr.raw).toContain('\x1B[?25l');
    expect(stderr.raw.lastIndexOf('\x1B[?25h')).toBeGreaterThan(stderr.raw.lastIndexOf('\x1B[?25l'));
    expect(stderr.raw.endsWith('\n')).toBe(true);
    expect(stdout.raw).toBe('Done: 3 pages extracted.\n');
  });

  it('draws no bar when stderr is not a terminal', async () => {
    const stderr = new ScreenStream(false);
    const stdout = new ScreenStream(false);
    await runExtract(api, { cluster: 'ops', yes: true, wait: true, pollMs: 100 }, terminal(stderr, stdout));
    expect(stderr.raw).toMatch(/^About 2 extraction calls .*\nEnqueued 2 pages; request [0-9a-f-]{36}\.\n$/);
    expect(stdout.raw).toBe('Done: 2 pages extracted.\n');
  });
});
