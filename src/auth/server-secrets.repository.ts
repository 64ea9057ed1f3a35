import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ServerSecretEntity } from './server-secret.entity.js';

/** All SQL over server_secrets. */
@Injectable()
export class ServerSecretsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The stored value, or `candidate` stored now; the first process to store a value wins, the others read it. */
  async getOrCreate(name: string, candidate: string): Promise<string> {
    await this.dataSource.manager.createQueryBuilder().insert().into(ServerSecretEntity).values({ name, value: candidate }).orIgnore().execute();
    return (await this.get(name))!;
  }

  async get(name: string, db: EntityManager = this.dataSource.manager): Promise<string | null> {
    return (await db.findOne(ServerSecretEntity, { where: { name } }))?.value ?? null;
  }

  async delete(name: string, db: EntityManager = this.dataSource.manager): Promise<void> {
    await db.delete(ServerSecretEntity, { name });
  }
}
