import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { queryInTurn } from '../../src/db/queries-in-turn.js';

/** A connection that records when each query is sent and answers when the test says so. */
function fakeClient() {
  const sent: string[] = [];
  const answers: ((ok: boolean) => void)[] = [];
  const client = {
    query: (text: string) => {
      sent.push(text);
      return new Promise((resolve, reject) => answers.push((ok) => (ok ? resolve({ rows: [text] }) : reject(new Error(`${text} failed`)))));
    },
  } as unknown as pg.Client;
  return { client, sent, answer: (i: number, ok = true) => answers[i](ok) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('queryInTurn', () => {
  it('sends a query on a shared connection only once the one before it has answered, even when that one failed', async () => {
    const { client, sent, answer } = fakeClient();
    const first = queryInTurn(client, 'one');
    const second = queryInTurn(client, 'two');
    const third = queryInTurn(client, 'three');
    await tick();
    expect(sent).toEqual(['one']);
    answer(0, false);
    await expect(first).rejects.toThrow('one failed');
    await tick();
    expect(sent).toEqual(['one', 'two']);
    answer(1);
    expect((await second).rows).toEqual(['two']);
    await tick();
    answer(2);
    expect((await third).rows).toEqual(['three']);
  });

  it('keeps one queue per connection: another connection does not wait', async () => {
    const a = fakeClient();
    const b = fakeClient();
    void queryInTurn(a.client, 'a1');
    void queryInTurn(b.client, 'b1');
    await tick();
    expect([a.sent, b.sent]).toEqual([['a1'], ['b1']]);
  });
});
