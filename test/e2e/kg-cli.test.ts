// @module-tag slow (runs bin/kurate processes): `npm run test:fast` leaves it out; docs/testing.md
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, kurate, type CliTarget } from '../support/cli.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setPolicy, startWorker, waitForJobs } from './kg-test-helpers.js';

/** `bin/kurate kg extract` and `bin/kurate kg status`, run as a user would against a running server. */
describe('bin/kurate kg', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let as: CliTarget;

  beforeAll(async () => {
    await ensureCliBuilt();
    t = await startTestApp({ listen: true, env: { KURATE_JOB_POLL_SECONDS: '0.5' } });
    admin = await t.as('admin', { name: 'Grace' });
    as = { baseUrl: t.baseUrl!, token: (await t.user('admin', { name: 'Grace' })).token };
    for (const [title, cluster] of [['Install', 'docs'], ['Upgrade', 'docs'], ['Backup', 'docs/ops'], ['Diary', 'personal']]) {
      await admin.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\n# ${title}\n\n${title} the [[Kurate Server]] on [[Debian]]: a short guide.\n` }).expect(201);
    }
    // As if the pages were there before extraction existed: included, but no job was ever enqueued for them.
    await setPolicy(admin, 'docs', 'include');
    await t.dataSource.query('DELETE FROM pgboss.job');
  }, 120_000);
  afterAll(() => t?.close());

  it('refuses without exactly one scope, and explains an unknown page or cluster', async () => {
    const none = await kurate(as, 'kg', 'extract');
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toBe('kurate: Say what to extract with exactly one of --all, --cluster <cluster> or --page <slug>.\n');
    expect((await kurate(as, 'kg', 'extract', '--all', '--cluster', 'docs')).code).toBe(1);
    expect((await kurate(as, 'kg', 'extract', '--page', 'nothing-here')).stderr).toBe('kurate: There is no page "nothing-here".\n');
    expect((await kurate(as, 'kg', 'extract', '--cluster', 'nowhere')).stderr).toBe('kurate: No page has the cluster "nowhere" (or a sub-cluster of it).\n');
    const excluded = await kurate(as, 'kg', 'extract', '--page', 'diary');
    expect(excluded.code).toBe(1);
    expect(excluded.stderr).toMatch(/^kurate: The page "Diary" is excluded from the knowledge graph by the inclusion policy/);
  });

  it('needs an admin’s token', async () => {
    const author = await kurate({ baseUrl: t.baseUrl!, token: (await t.user('author')).token }, 'kg', 'status');
    expect(author.code).toBe(1);
    expect(author.stderr).toMatch(/^kurate: .*Set KURATE_TOKEN to an admin's API token \(admin scope\)\.\n$/);
  });

  it('estimates the calls of a dry run and enqueues nothing', async () => {
    const dry = await kurate(as, 'kg', 'extract', '--cluster', 'docs', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe('About 3 extraction calls (builtin, kurate-builtin-v9) for 3 of 3 included pages; 0 unchanged chunks cost nothing.\nNothing was enqueued (dry run).\n');
    const json = JSON.parse((await kurate(as, 'kg', 'extract', '--all', '--dry-run', '--json')).stdout);
    expect(json).toMatchObject({ scope: 'all', pages: 4, includedPages: 3, excludedPages: 1, pagesToExtract: 3, estimatedCalls: 3, requestId: null });
    expect(await t.dataSource.query('SELECT count(*)::int AS n FROM pgboss.job')).toEqual([{ n: 0 }]);
  });

  it('extracts a scope: the estimate first, then the jobs followed to their end', async () => {
    await startWorker(t);
    const run = await kurate(as, 'kg', 'extract', '--cluster', 'docs', '--poll-ms', '200');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^About 3 extraction calls \(builtin, kurate-builtin-v9\) for 3 of 3 included pages; 0 unchanged chunks cost nothing\.\nEnqueued 3 pages; request [0-9a-f-]{36}\.\n$/);
    expect(run.stdout).toBe('Done: 3 pages extracted.\n');
    expect(await t.dataSource.query('SELECT count(*)::int AS n FROM kg_page_extractions')).toEqual([{ n: 3 }]);
    const again = await kurate(as, 'kg', 'extract', '--all');
    expect(again).toMatchObject({ code: 0, stdout: 'Nothing to extract: 3 of 3 included pages are up to date.\n1 page in scope is excluded by the inclusion policy and will not be read.\n' });
  });

  it('prints the status as a table and as JSON', async () => {
    await waitForJobs(t);
    const status = await kurate(as, 'kg', 'status');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Backend     builtin (kurate-builtin-v9); embeddings builtin');
    expect(status.stdout).toContain('Pages       3 included: 3 extracted, 0 changed since, 0 never extracted');
    expect(status.stdout).toMatch(/^QUEUE\s+QUEUED\s+RETRYING\s+RUNNING\s+FAILED\s+DONE\nkg-extract-page\s+0\s+0\s+0\s+0\s+3$/m);
    expect(status.stdout).toMatch(/^builtin\s+0\s+0\s+0\s+0\s+3\s+3$/m);
    expect(status.stdout).toContain('No failed extraction.');
    const json = JSON.parse((await kurate(as, 'kg', 'status', '--json')).stdout);
    expect(json.pages).toEqual({ included: 3, extracted: 3, changedSinceExtraction: 0, neverExtracted: 0 });
  });

  it('gives both commands --help with examples', async () => {
    for (const command of ['extract', 'status']) {
      const help = await kurate(as, 'kg', command, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`$ kurate kg ${command}`);
    }
  });
});
