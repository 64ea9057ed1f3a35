import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { KurateConfig } from '../config/kurate-config.js';
import { EMBEDDED_POSTGRES } from './embedded-postgres.js';
import { NotificationBarrier } from './notification-barrier.js';
import { queryInTurn } from './queries-in-turn.js';

const RECONNECT_MS = 2_000;
/** The LISTEN connection's application_name in pg_stat_activity. */
export const NOTIFICATIONS_APPLICATION_NAME = 'kurate-notifications';

/** What a cache hears on a channel: each notification's payload, and "anything may have changed" (a reconnect). */
export interface ChannelListener {
  notified(payload: string): void;
  /** The connection was (re)opened: notifications sent while nobody listened are lost, so forget everything. */
  reset(): void;
}

/**
 * One LISTEN connection per process, shared by the caches that must hear other processes' writes (PostgreSQL's
 * NOTIFY is delivered when the writer commits). On the embedded database there is one process and PGlite's own
 * listener is used. `caughtUp()` closes the gap between a writer's commit and its notification reaching this
 * process: a reader told of a write (by the writer's answer) asks the very next request with it heard.
 */
@Injectable()
export class DatabaseNotifications implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Notifications');
  private readonly channels = new Map<string, ChannelListener[]>();
  private client: pg.Client | null = null;
  private connected = false;
  private stopped = false;
  private started = false;
  private readonly unlisten: (() => Promise<void>)[] = [];
  private readonly barrier = new NotificationBarrier(() => this.client);

  constructor(
    private readonly config: KurateConfig,
    @Inject(EMBEDDED_POSTGRES) private readonly pglite: PGlite | null,
  ) {}

  /** True while every notification of every channel is heard; a cache must not trust what it holds otherwise. */
  get listening(): boolean {
    return this.pglite ? this.started : this.connected;
  }

  /** Hears `channel` from now on (subscribe in a constructor or onModuleInit: the connection opens at module init). */
  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a channel name: ${channel}`);
    const listeners = this.channels.get(channel) ?? [];
    listeners.push(listener);
    const first = !this.channels.has(channel);
    this.channels.set(channel, listeners);
    if (!first) return;
    if (this.pglite && this.started) this.unlisten.push(await this.pglite.listen(channel, (payload) => this.dispatch(channel, payload)));
    else if (this.client) await queryInTurn(this.client, `LISTEN ${channel}`);
  }

  /** Resolves once every notification committed before the call has been handled here. */
  caughtUp(): Promise<void> {
    return this.client ? this.barrier.sync() : Promise.resolve();
  }

  async onModuleInit(): Promise<void> {
    if (this.pglite) {
      for (const channel of this.channels.keys()) this.unlisten.push(await this.pglite.listen(channel, (payload) => this.dispatch(channel, payload)));
      this.started = true;
    } else if (this.config.database.kind === 'postgres') {
      await this.connect();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => undefined);
    if (this.pglite && !this.pglite.closed) for (const unlisten of this.unlisten) await unlisten().catch(() => undefined);
  }

  private dispatch(channel: string, payload: string | undefined): void {
    for (const listener of this.channels.get(channel) ?? []) listener.notified(payload ?? '');
  }

  private resetAll(): void {
    for (const listeners of this.channels.values()) for (const listener of listeners) listener.reset();
  }

  private async connect(): Promise<void> {
    const database = this.config.database;
    if (this.stopped || database.kind !== 'postgres') return;
    const client = new pg.Client({
      connectionString: database.url,
      ssl: database.ssl ? { rejectUnauthorized: false } : undefined,
      application_name: NOTIFICATIONS_APPLICATION_NAME,
    });
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      this.connected = false;
      this.client = null;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      if (error) this.logger.warn(`Database notifications interrupted (${error instanceof Error ? error.message : String(error)}); caches that need them stay off until they resume.`);
      setTimeout(() => void this.connect(), RECONNECT_MS).unref();
    };
    client.on('notification', (message) => this.dispatch(message.channel, message.payload));
    client.on('error', (error) => onLost(error));
    client.on('end', () => onLost());
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await queryInTurn(client, `LISTEN ${channel}`);
      this.client = client;
      this.connected = true;
      // Anything may have changed while nobody was listening.
      this.resetAll();
    } catch (error) {
      onLost(error);
    }
  }
}
