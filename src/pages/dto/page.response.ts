import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { PageRevisionEntity } from '../page-revision.entity.js';
import type { PageEntity } from '../page.entity.js';

export class PageResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty({ description: 'The full source: frontmatter + Markdown.' }) body: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) frontmatter: Record<string, unknown>;
  @ApiPropertyOptional({ type: String, nullable: true }) cluster: string | null;
  @ApiProperty({ type: [String] }) clusters: string[];
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty({ type: [String] }) aliases: string[];
  @ApiPropertyOptional({ type: String, nullable: true }) type: string | null;
  @ApiProperty() isSystem: boolean;
  @ApiProperty({ description: 'Send it back as baseVersion when saving.' }) version: number;
  @ApiProperty() contentHash: string;
  @ApiProperty() createdAt: string;
  @ApiProperty() createdBy: string;
  @ApiProperty() updatedAt: string;
  @ApiProperty() updatedBy: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'The note\'s path in the vault it was imported from, where `kurate export` writes it (null: not imported, or renamed or moved since).' })
  vaultPath: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'The `cluster:` line import added for the note\'s folder, which `kurate export` leaves out.' })
  vaultCluster: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) deletedAt: string | null;
  @ApiProperty({ description: 'Where the page is in the web UI.' }) url: string;
}

export class RevisionResponse {
  @ApiProperty() version: number;
  @ApiProperty() title: string;
  @ApiProperty() slug: string;
  @ApiProperty() author: string;
  @ApiProperty() message: string;
  @ApiProperty() createdAt: string;
  @ApiPropertyOptional() body?: string;
}

export function pageResponse(page: PageEntity): PageResponse {
  return {
    id: page.id,
    slug: page.slug,
    title: page.title,
    body: page.body,
    frontmatter: page.frontmatter,
    cluster: page.cluster,
    clusters: page.clusters,
    tags: page.tags,
    aliases: page.aliases,
    type: page.pageType,
    isSystem: page.isSystem,
    version: page.version,
    contentHash: page.contentHash,
    createdAt: page.createdAt.toISOString(),
    createdBy: page.createdBy,
    updatedAt: page.updatedAt.toISOString(),
    updatedBy: page.updatedBy,
    vaultPath: page.vaultPath,
    vaultCluster: page.vaultCluster,
    deletedAt: page.deletedAt ? page.deletedAt.toISOString() : null,
    url: `/page/${encodeURIComponent(page.slug)}`,
  };
}

export function revisionResponse(revision: PageRevisionEntity, withBody = false): RevisionResponse {
  return {
    version: revision.version,
    title: revision.title,
    slug: revision.slug,
    author: revision.author,
    message: revision.message,
    createdAt: revision.createdAt.toISOString(),
    ...(withBody ? { body: revision.body } : {}),
  };
}
