import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { KurateConfig } from '../config/kurate-config.js';
import { NotificationBarrier } from '../db/notification-barrier.js';

const CHANNEL = 'kurate_page_changes';
const RECONNECT_MS = 2_000;

/**
 * Tells every app process that some page changed, so caches of rendered pages stay exact: a write bumps the local
 * epoch after its commit and NOTIFYs the others (NOTIFY is delivered on commit). On the embedded database there is
 * one process, so the local bump is all it takes. While the LISTEN connection is down, caching is switched off.
 */
@Injectable()
export class PageChangeFeed implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(PageChangeFeed.name);
  private currentEpoch = 0;
  private listening: boolean;
  private client: pg.Client | null = null;
  private stopped = false;
  private readonly lostClients = new WeakSet<pg.Client>();
  private readonly barrier = new NotificationBarrier(() => this.client);

  constructor(private readonly config: KurateConfig) {
    this.listening = config.database.kind === 'embedded';
  }

  /** Changes whenever any page changes; a cached rendering is valid only for the epoch it was read in. */
  get epoch(): number {
    return this.currentEpoch;
  }

  /** False while changes made by other processes could go unnoticed. */
  get reliable(): boolean {
    return this.listening;
  }

  /**
   * The channel a page write notifies inside its transaction (the other processes hear of it when it commits), or
   * null on the embedded database, where this process is the only one.
   */
  get announceChannel(): string | null {
    return this.config.database.kind === 'postgres' ? CHANNEL : null;
  }

  /**
   * Resolves once every page change committed before the call is reflected in `epoch`: on PostgreSQL, a round trip
   * on the LISTEN connection (a save on another process is then seen by the very next read here); on the embedded
   * database at once (this process made every change itself).
   */
  caughtUp(): Promise<void> {
    return this.config.database.kind === 'postgres' ? this.barrier.sync() : Promise.resolve();
  }

  /** After the write committed: this process's caches forget everything at once. */
  committed(): void {
    this.currentEpoch++;
  }

  async onModuleInit(): Promise<void> {
    if (this.config.database.kind === 'postgres') await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.config.database.kind !== 'postgres' || this.stopped) return;
    const client = new pg.Client({
      connectionString: this.config.database.url,
      ssl: this.config.database.ssl ? { rejectUnauthorized: false } : undefined,
    });
    client.on('notification', () => this.currentEpoch++);
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.client = client;
      // Anything may have changed while nobody was listening.
      this.currentEpoch++;
      this.listening = true;
    } catch (error) {
      this.lost(client, error);
    }
  }

  private lost(client: pg.Client, error?: unknown): void {
    // 'error' and 'end' both fire for one broken connection: reconnect once.
    if (this.lostClients.has(client)) return;
    this.lostClients.add(client);
    this.listening = false;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    if (error) this.logger.warn(`Page change notifications interrupted (${error instanceof Error ? error.message : String(error)}); page caching is off until they resume.`);
    setTimeout(() => void this.listen(), RECONNECT_MS).unref();
  }
}
