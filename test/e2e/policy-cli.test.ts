// @module-tag slow (runs bin/kg-policy.sh processes): `npm run test:fast` leaves it out; docs/testing.md
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { REPO_ROOT } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const run = promisify(execFile);
const CLI = path.join(REPO_ROOT, 'bin/kg-policy.sh');
// What a Debian machine has: no jq, python or node on the PATH the script sees.
const BARE_PATH = '/usr/local/bin:/usr/bin:/bin';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs bin/kg-policy.sh as a user would: a child process with KURATE_URL and KURATE_TOKEN in its environment. */
async function cli(env: { url: string; token?: string }, ...args: string[]): Promise<CliRun> {
  const childEnv: Record<string, string> = { PATH: BARE_PATH, HOME: process.env.HOME ?? '/tmp', KURATE_URL: env.url, LC_ALL: 'C.UTF-8' };
  if (env.token) childEnv.KURATE_TOKEN = env.token;
  try {
    const { stdout, stderr } = await run('bash', [CLI, ...args], { env: childEnv });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('bin/kg-policy.sh against a running server', () => {
  let t: TestApp;
  let admin: supertest.Agent;
  let as: { url: string; token: string };

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
    const user = await t.user('admin', { name: 'Grace' });
    as = { url: t.baseUrl!, token: user.token };
    admin = await t.as('admin', { name: 'Grace' });
    for (const [title, cluster] of [['Diary', 'personal'], ['Trip', 'personal'], ['Roadmap', 'work'], ['Salaries', 'work/secret'], ['Install', 'docs']]) {
      await admin.post('/api/pages').send({ title, body: `---\ncluster: ${cluster}\n---\nAbout ${title}.\n` }).expect(201);
    }
  });
  afterAll(() => t.close());

  it('prints help, and refuses usage mistakes with exit 2 and one line', async () => {
    const help = await cli(as, '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: kg-policy\.sh \[--json\] <command>/);
    for (const command of ['list', 'set', 'clear', 'explain', 'pending', 'review', 'mark-reviewed', 'audit', 'estimate', 'purge']) {
      expect(help.stdout).toContain(`  ${command}`);
    }
    const noReason = await cli(as, 'set', 'personal', 'exclude');
    expect(noReason).toMatchObject({ code: 2, stdout: '' });
    expect(noReason.stderr).toMatch(/^kg-policy\.sh: set needs --reason "why"/);
    expect((await cli(as, 'set', 'personal', 'hide', '--reason', 'x')).code).toBe(2);
    expect((await cli(as, 'frobnicate')).stderr).toMatch(/unknown command "frobnicate"/);
    expect((await cli(as, 'list', '--colour')).stderr).toMatch(/unknown option --colour/);
  });

  it('lists clusters and pending clusters as tables', async () => {
    const list = await cli(as, 'list');
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CLUSTER\s+PAGES\s+EXCLUDED\s+ACTION\s+REASON\s+SET_BY\s+SET_AT\s+REVIEWED_AT\s+STALE$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(['docs', 'personal', 'work', 'work/secret']);
    expect(lines.find((l) => l.startsWith('work '))).toMatch(/^work\s+2\s+2\s+\(default exclude\)$/);
    const pending = await cli(as, 'pending');
    expect(pending.stdout).toBe('CLUSTER      PAGES\ndocs         1\npersonal     2\nwork         2\nwork/secret  1\n');
  });

  it('sets a policy with a reason (sub-clusters too) and says what changed', async () => {
    const set = await cli(as, 'set', 'personal', 'exclude', '--reason', 'private "notes"; keep out');
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toBe('personal: now exclude (pages: 2, excluded: 2; newly excluded: 0, newly included: 0)\n');
    const work = await cli(as, 'set', 'work', 'include', '--reason=team knowledge');
    expect(work.stdout).toBe('work: now include (pages: 2, excluded: 0; newly excluded: 0, newly included: 2)\n');
    const secret = await cli(as, 'set', 'work/secret', 'exclude', '--reason', 'payroll');
    expect(secret.stdout).toBe('work/secret: now exclude (pages: 1, excluded: 1; newly excluded: 1, newly included: 0)\n');
    const rows: { reason: string }[] = await t.dataSource.query(`SELECT reason FROM kg_cluster_policy WHERE cluster = 'personal'`);
    expect(rows[0].reason).toBe('private "notes"; keep out');
  });

  it('explains a page in one line', async () => {
    const res = await cli(as, 'explain', 'salaries');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^salaries: excluded: cluster `work\/secret` has policy exclude, set by Grace on \d{4}-\d{2}-\d{2} \("payroll"\)\n$/);
    const missing = await cli(as, 'explain', 'no-such-page');
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe('kg-policy.sh: There is no page "no-such-page". (HTTP 404)\n');
  });

  it('estimates a change without making it', async () => {
    const res = await cli(as, 'estimate', 'personal', 'include');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^ROWS\s+HIDE\s+REVEAL\npages\s+0\s+2\nchunks\s+0\s+0\n/);
    expect(res.stdout).toContain('Nothing was changed. To apply: kg-policy.sh set personal include --reason "why"');
    expect((await cli(as, 'explain', 'diary')).stdout).toMatch(/^diary: excluded/);
  });

  it('lists stale policies and marks one reviewed', async () => {
    expect((await cli(as, 'review')).stdout).toBe('No stale policies: every policy was reviewed recently.\n');
    await t.dataSource.query(`UPDATE kg_cluster_policy SET reviewed_at = now() - interval '200 days' WHERE cluster = 'personal'`);
    const stale = await cli(as, 'review');
    expect(stale.stdout.split('\n')[1]).toMatch(/^personal\s+2\s+2\s+exclude\s+private "notes"; keep out\s+Grace\s+\S+\s+\S+\s+STALE$/);
    const marked = await cli(as, 'mark-reviewed', 'personal', '--note', 'checked with the team');
    expect(marked.stdout).toBe('personal: marked reviewed.\n');
    expect((await cli(as, 'review')).stdout).toMatch(/^No stale policies/);
  });

  it('clears a policy with a reason', async () => {
    const res = await cli(as, 'clear', 'work/secret', '--reason', 'moved out');
    expect(res.stdout).toBe('work/secret: policy cleared, now (include via work) (pages: 1, excluded: 0; newly excluded: 0, newly included: 1)\n');
    expect((await cli(as, 'clear', 'work/secret', '--reason', 'again')).stderr).toBe('kg-policy.sh: The cluster "work/secret" has no policy of its own. (HTTP 404)\n');
  });

  it('prints the audit trail, filtered and limited', async () => {
    const res = await cli(as, 'audit', '--cluster', 'work', '--limit', '2');
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^AT\s+ACTOR\s+EVENT\s+CLUSTER\s+FROM\s+TO\s+REASON$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/Grace\s+clear\s+work\/secret\s+exclude\s+moved out$/);
    expect(lines[2]).toMatch(/Grace\s+set\s+work\/secret\s+exclude\s+payroll$/);
    expect((await cli(as, 'audit', '--limit', 'ten')).code).toBe(2);
  });

  it('purges only with --confirm; without it, a dry run', async () => {
    const dry = await cli(as, 'purge', 'personal');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^TABLE\s+ROWS\nkg_edge_provenance\s+0\n/);
    expect(dry.stdout).toContain('Dry run: nothing was deleted. To delete these rows for good: kg-policy.sh purge personal --confirm');
    const refused = await cli(as, 'purge', 'work', '--confirm');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe('kg-policy.sh: The cluster "work" is included: set it to exclude first, or its pages would simply be extracted again. (HTTP 409)\n');
    const purged = await cli(as, 'purge', 'personal', '--confirm');
    expect(purged.code).toBe(0);
    expect(purged.stdout).toContain('Purged "personal".');
    const [last] = (await admin.get('/admin/kg-policy/audit?limit=1').expect(200)).body.items;
    expect(last).toMatchObject({ event: 'purge', cluster: 'personal', actor: 'Grace' });
  });

  it('--json prints the server’s JSON for scripts', async () => {
    const res = await cli(as, '--json', 'list');
    expect(res.code).toBe(0);
    const body = JSON.parse(res.stdout);
    expect(body.items.map((c: { cluster: string }) => c.cluster)).toEqual(['docs', 'personal', 'work', 'work/secret']);
    const explain = JSON.parse((await cli(as, 'explain', 'diary', '--json')).stdout);
    expect(explain).toMatchObject({ slug: 'diary', included: false, reason: 'cluster_policy' });
  });

  it('fails with one line and a non-zero exit for a bad token, a reader, a missing token, an unknown cluster, a server that is down', async () => {
    const bad = await cli({ url: as.url, token: 'kur_wrong' }, 'list');
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^kg-policy\.sh: not authenticated \(HTTP 401\): .*Set KURATE_TOKEN to an admin's API token\.\n$/);
    const none = await cli({ url: as.url }, 'list');
    expect(none.stderr).toMatch(/^kg-policy\.sh: not authenticated \(HTTP 401\): Log in to continue\./);
    const reader = await t.user('reader');
    const denied = await cli({ url: as.url, token: reader.token }, 'set', 'docs', 'include', '--reason', 'x');
    expect(denied).toMatchObject({ code: 1 });
    expect(denied.stderr).toMatch(/^kg-policy\.sh: forbidden \(HTTP 403\): This needs the admin role/);
    const unknown = await cli(as, 'set', 'personl', 'exclude', '--reason', 'typo');
    expect(unknown.stderr).toMatch(/^kg-policy\.sh: No page has the cluster "personl" and it has no policy\. .*\(HTTP 404\)\n$/);
    const down = await cli({ url: 'http://127.0.0.1:9', token: as.token }, 'list');
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^kg-policy\.sh: cannot reach Kurate at http:\/\/127\.0\.0\.1:9 \(.*\); is the server running\? \(KURATE_URL\)\n$/);
    for (const r of [bad, none, denied, unknown, down]) expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
