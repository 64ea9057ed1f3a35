import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

/** Per entity class, its select lists by table alias and prefix. */
const lists = new Map<EntityTarget<ObjectLiteral>, Map<string, string>>();

/**
 * The columns TypeORM reads of an entity (those it selects by default), as an SQL select list that names each by its
 * property: `<from>.<column> AS "<prefix><property>"`. For hand-written statements (prepared statements on hot
 * paths) whose rows become entities again with `manager.create` (`entityValues` takes one entity's values out of a
 * row that holds several, by their prefix). Built once per process for each entity, table alias and prefix.
 */
export function entityColumns(dataSource: DataSource, entity: EntityTarget<ObjectLiteral>, from = '', prefix = ''): string {
  let ofEntity = lists.get(entity);
  if (!ofEntity) lists.set(entity, (ofEntity = new Map()));
  const key = `${from}\u0000${prefix}`;
  let list = ofEntity.get(key);
  if (list === undefined) {
    list = dataSource
      .getMetadata(entity)
      .columns.filter((column) => column.isSelect)
      .map((column) => `${from ? `${from}.` : ''}${column.databaseName} AS "${prefix}${column.propertyName}"`)
      .join(', ');
    ofEntity.set(key, list);
  }
  return list;
}

/** One entity's values out of a row that `entityColumns(…, prefix)` named, keyed by property. */
export function entityValues(row: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) if (name.startsWith(prefix)) values[name.slice(prefix.length)] = value;
  return values;
}
