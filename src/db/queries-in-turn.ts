import type pg from 'pg';

const tails = new WeakMap<pg.Client, Promise<unknown>>();

/**
 * A query on a dedicated connection (the LISTEN connection, a worker's lease connection), sent once the connection's
 * previous query has answered. Several callers share such a connection (a lease taken while another is released, a
 * barrier's round trip while a channel is subscribed); node-postgres queues a query sent meanwhile, but that is
 * deprecated and pg@9 refuses it, so the queue is kept here.
 */
export function queryInTurn<R extends pg.QueryResultRow = pg.QueryResultRow>(client: pg.Client, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
  const previous = tails.get(client) ?? Promise.resolve();
  const run = previous.then(() => client.query<R>(text, values));
  tails.set(client, run.catch(() => undefined));
  return run;
}
