import type { Pager } from '../web/pager.js';
import type { EntityReading } from './entity-reader.service.js';
import { entityHref as adminEntityHref } from '../admin/web-helpers.js';
import { searchHref } from '../web/reader-urls.js';

/** The view model of views/entity-view.hbs. */
export function entityPageModel(reading: EntityReading, options: { isAdmin: boolean; pager: Pager | null }) {
  const { entity, relations, pages } = reading;
  return {
    title: entity.name,
    extraCss: ['/static/css/entity.css'],
    entity,
    out: relations.filter((r) => r.direction === 'out'),
    in: relations.filter((r) => r.direction === 'in'),
    hasRelations: relations.length > 0,
    pages: pages.items,
    pageTotal: pages.total,
    firstRank: (pages.page - 1) * pages.perPage + 1,
    searchHref: searchHref(entity.name),
    adminHref: options.isAdmin ? adminEntityHref(entity.id) : null,
    pager: options.pager,
  };
}
