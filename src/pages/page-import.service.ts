import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditService } from '../audit/audit.service.js';
import type { Actor } from '../auth/actor.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { vaultPagePathProblem } from '../common/vault-paths.js';
import type { ImportBatchResponse, ImportCounts, ImportPageDto, ImportPageResult, WikiSummaryResponse } from './dto/import.dto.js';
import { MAX_MESSAGE_LENGTH } from './dto/page.dto.js';
import { FrontmatterError, parseFrontmatter } from './markdown/frontmatter.js';
import { pageSlug } from './markdown/slug.js';
import { PageGraphService } from './page-graph.service.js';
import type { PageEntity } from './page.entity.js';
import { PagesService, type VaultOrigin } from './pages.service.js';

/**
 * Imports a batch of Markdown files (from a vault) as pages: creates new ones, updates changed ones, leaves identical
 * ones alone. Every page is saved on its own, so one bad file is reported and the rest still arrive.
 */
@Injectable()
export class PageImportService {
  private readonly logger = new Logger(PageImportService.name);

  constructor(
    private readonly pages: PagesService,
    private readonly graph: PageGraphService,
    private readonly audit: AuditService,
  ) {}

  /** Saves each page in its own transaction, then records the batch in the audit log if it changed anything. */
  async importBatch(batch: ImportPageDto[], origin: RequestOrigin): Promise<ImportBatchResponse> {
    const { actor } = origin;
    const started = Date.now();
    // Two files of one batch naming the same page would silently overwrite each other; the later one fails instead.
    // So does a file whose path another file of the batch has (export would write both to one file).
    const pathBySlug = new Map<string, string>();
    const paths = new Set<string>();
    // Each file's title, read once (its frontmatter's YAML parsed): an error is that file's failure, later, alone.
    const titles = batch.map((input): { title: string } | { error: unknown } => {
      try {
        return { title: effectiveTitle(input) };
      } catch (error) {
        return { error };
      }
    });
    // One query finds which of the batch's pages exist already.
    const existing = await this.pages.findLiveMany(titles.flatMap((read) => ('title' in read ? [pageSlug(read.title)] : [])));
    const results: ImportPageResult[] = [];
    for (const [i, input] of batch.entries()) results.push(await this.importOne(input, titles[i], actor, pathBySlug, paths, existing));
    const counts = countByStatus(results);
    if (counts.created + counts.updated > 0) {
      await this.audit.record(actor, 'page.import', 'pages', { ...counts }, origin.ip);
    }
    this.logger.log(
      `Imported ${batch.length} pages in ${Date.now() - started} ms: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.failed} failed`,
    );
    return { results, counts };
  }

  /** The numbers an import reports afterwards: how whole the wiki's link graph is. */
  async summary(): Promise<WikiSummaryResponse> {
    const [[, pages], links, wanted, orphans] = await Promise.all([
      this.pages.list({ limit: 1, offset: 0, sort: 'title' }),
      this.graph.linkCounts(),
      this.graph.wanted(1, 0),
      this.graph.orphans(1, 0),
    ]);
    return { pages, resolvedLinks: links.resolved, brokenLinks: links.broken, wantedPages: wanted.total, orphans: orphans.total };
  }

  private async importOne(
    input: ImportPageDto,
    read: { title: string } | { error: unknown },
    actor: Actor,
    pathBySlug: Map<string, string>,
    paths: Set<string>,
    existing: Map<string, PageEntity>,
  ): Promise<ImportPageResult> {
    const { path } = input;
    let slug = '';
    try {
      if ('error' in read) throw read.error;
      const { title } = read;
      slug = pageSlug(title);
      if (!slug) throw new DomainException(DomainErrorCode.InvalidInput, `The title "${title}" needs at least one letter or digit.`);
      // PostgreSQL text cannot hold U+0000; such a file is almost always binary data saved with a .md name.
      if (input.body.includes('\0') || title.includes('\0')) {
        throw new DomainException(DomainErrorCode.InvalidInput, 'The file contains a NUL character (is it a binary file?).');
      }
      const earlier = pathBySlug.get(slug);
      if (earlier !== undefined) {
        throw new DomainException(DomainErrorCode.SlugTaken, `"${earlier}" in the same batch is the same page "${slug}"; give one of them another title.`);
      }
      // Compared as export compares them: macOS and Windows file systems make two names differing in case one file.
      const pathKey = vaultPathKey(path);
      if (paths.has(pathKey)) {
        throw new DomainException(DomainErrorCode.InvalidInput, `Another file of this batch has the path "${path}" (letter case aside); a vault has one file at a path.`);
      }
      paths.add(pathKey);
      pathBySlug.set(slug, path);

      const message = importMessage(path);
      // An old slug that redirects to a renamed page is free: the file is a page of its own.
      try {
        return await this.save(input, title, slug, existing.get(slug), message, actor);
      } catch (error) {
        // Another import (or a save) created or changed the page after this batch looked: decide again on the page as
        // it is now, as an import started after that one would (identical: unchanged; else an update of it).
        if (!(error instanceof DomainException) || (error.code !== DomainErrorCode.SlugTaken && error.code !== DomainErrorCode.VersionConflict)) throw error;
        return await this.save(input, title, slug, (await this.pages.findLiveMany([slug])).get(slug), message, actor);
      }
    } catch (error) {
      return { path, slug, status: 'failed', error: this.reasonOf(error, path) };
    }
  }

  /** Creates the page, updates it, or leaves it alone, against `current` (the live page of that slug, if any). */
  private async save(input: ImportPageDto, title: string, slug: string, current: PageEntity | undefined, message: string, actor: Actor): Promise<ImportPageResult> {
    const { path } = input;
    const origin = vaultOriginOf(input);
    if (!current) {
      await this.pages.create({ title: input.title, body: input.body, message }, actor, origin);
      return { path, slug, status: 'created' };
    }
    if (current.body === input.body && current.title === title) {
      // Moved in the vault, same text: no revision, but export now writes it to its new place.
      if (current.vaultPath !== origin.path || current.vaultCluster !== origin.cluster) await this.pages.recordVaultOrigin(current, origin);
      return { path, slug, status: 'unchanged' };
    }
    const { page } = await this.pages.update(slug, { body: input.body, baseVersion: current.version, message }, actor);
    // A save keeps the stored title unless the frontmatter names one, so a file renamed only in letter case
    // ("foo.md" → "Foo.md", same slug) needs a rename to carry its new title.
    const named = page.title !== title ? (await this.pages.rename(slug, title, { rewriteLinks: false }, actor)).page : page;
    await this.pages.recordVaultOrigin(named, origin);
    return { path, slug, status: 'updated' };
  }

  private reasonOf(error: unknown, path: string): string {
    if (error instanceof DomainException) return error.message;
    const correlationId = randomUUID();
    this.logger.error(`Import of "${path}" failed [${correlationId}]`, error instanceof Error ? error.stack : String(error));
    return `Something went wrong on our side saving this page; the error has been logged (${correlationId}).`;
  }
}

/**
 * Where the note lives in its vault, kept for `kurate export` (migration 0023): its path when that is a safe relative
 * Markdown path (anything else is still imported, and exports to `<cluster>/<title>.md`), and the `cluster:` line
 * the CLI added for its folder, when that line is in the body sent.
 */
function vaultOriginOf(input: ImportPageDto): VaultOrigin {
  if (vaultPagePathProblem(input.path) !== null) return { path: null, cluster: null };
  const cluster = input.addedCluster !== undefined && input.body.includes(input.addedCluster) ? input.addedCluster : null;
  return { path: input.path.normalize('NFC'), cluster };
}

/** The title a save will give the page: the frontmatter's `title:`, else the one sent (as PagesService decides). */
function effectiveTitle(input: ImportPageDto): string {
  try {
    return (parseFrontmatter(input.body).frontmatter.title ?? input.title).trim();
  } catch (error) {
    if (error instanceof FrontmatterError) throw new DomainException(DomainErrorCode.InvalidFrontmatter, error.message, { line: error.line });
    throw error;
  }
}

/** A vault path as export compares paths: NFC, lower case. */
function vaultPathKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

function importMessage(path: string): string {
  const message = `Imported from ${path}`;
  return message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

function countByStatus(results: ImportPageResult[]): ImportCounts {
  const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  for (const result of results) counts[result.status]++;
  return counts;
}
