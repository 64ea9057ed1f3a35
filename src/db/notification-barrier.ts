import type pg from 'pg';
import { queryInTurn } from './queries-in-turn.js';

/**
 * "Have I heard every NOTIFY committed before now?" for a LISTEN connection. A notification reaches a listening
 * process a moment after the writer's commit returns, so a reader that was told of a save (by the writer's answer)
 * may ask this process before the notification has been handled. A round trip on the LISTEN connection closes that
 * gap: PostgreSQL sends a connection its pending notifications before it answers the query, and the client handles
 * messages in order. Calls that arrive while a round trip is in flight share the next one, which starts after them.
 */
export class NotificationBarrier {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly connection: () => pg.Client | null) {}

  sync(): Promise<void> {
    if (!this.running) {
      this.running = this.roundTrip().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.next ??= this.running.then(() => {
      this.next = null;
      return this.sync();
    });
    return this.next;
  }

  private async roundTrip(): Promise<void> {
    const client = this.connection();
    // No connection: the caller's own "not listening" state already stops it trusting what it holds.
    if (!client) return;
    await queryInTurn(client, 'SELECT 1').catch(() => undefined);
  }
}
