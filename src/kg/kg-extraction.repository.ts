import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TermStats } from '../extractors/extraction.types.js';
import type { StoredChunk } from './chunk-plan.js';
import type { TermCounts } from './term-stats.js';
import { preparedQuery } from '../db/prepared-query.js';
import { SEARCH_CORPUS } from '../db/search-corpus.js';
import { vectorText } from '../db/vector-text.js';
import { MAX_PROPOSAL_ALIASES } from './name-variants.js';
import { lockEdgeSignaturesSql } from './edge-signature-locks.js';

/** A page as extraction reads it (straight from the pages table: read-only, like the policy module). */
export interface PageForExtraction {
  id: string;
  title: string;
  body: string;
  cluster: string | null;
  /** pages.content_hash (title and full source). */
  contentHash: string;
  deleted: boolean;
}

/** A page's stored chunks, as one JSON array in the page's row (one round trip instead of two). */
const STORED_CHUNKS_JSON = `(SELECT json_agg(json_build_object('id', c.id::text, 'contentHash', c.content_hash, 'position', c.position,
                                                   'anchor', c.anchor, 'embeddingModel', c.embedding_model) ORDER BY c.position, c.id)
                             FROM kg_content_chunks c WHERE c.page_id = p.id)`;

export interface PageState extends PageForExtraction {
  /** The inclusion policy lets the page feed the knowledge graph. */
  included: boolean;
  chunks: (StoredChunk & { embeddingModel: string | null })[];
  /** Is any entity approved yet? (Until one is, there is no dictionary of known names to look up.) */
  anyNode: boolean;
  record: PageExtractionRecord | null;
  /**
   * The pages this page links to, by link key: title, primary cluster and frontmatter `type`. Only links that resolve
   * to a live page: a missing page or an attachment is no title.
   */
  linkTitles: Map<string, LinkedPage>;
  /** The path the page was imported from, null for a page written in the wiki (src/kg/page-hierarchy.ts). */
  vaultPath: string | null;
  /** The link keys whose links reached a stored file (attachments/ keeps `page_links.resolved_attachment_id`). */
  fileKeys: Set<string>;
}

type PageStateRow = PageForExtraction &
  PageExtractionRecord & { included: boolean; chunks: PageState['chunks'] | null; anyNode: boolean; hasRecord: boolean; linkTitles: [string, LinkedPage][] | null; vaultPath: string | null; fileKeys: string[] | null };

/** A pending proposal's name as variants compare it: lower case, runs of `-`, `_` and spaces as one space. */
const PROPOSAL_VARIANT = `lower(regexp_replace(p.name, '[-_[:space:]]+', ' ', 'g'))`;

/**
 * How much of a linked page's source is read for its own first heading: past a frontmatter block of usual size, and
 * little enough that a page linking to thousands of pages reads a few megabytes at most.
 */
const LINKED_PAGE_HEAD_CHARS = 800;

export interface LinkedPage {
  title: string;
  cluster: string | null;
  type: string | null;
  /** The path it was imported from (`pages.vault_path`), null for a page written in the wiki. */
  path: string | null;
  /** The start of its Markdown source, where its own first heading would be (src/pages/markdown/frontmatter.ts). */
  head: string;
}

export interface PageExtractionRecord {
  sourceHash: string;
  pageContentHash: string;
  contextHash: string;
  chunkCount: number;
  extractor: string;
  model: string | null;
  embeddingModel: string | null;
}

export interface NewChunkRow {
  position: number;
  headingPath: string[];
  anchor: string | null;
  text: string;
  contentHash: string;
  tokenEstimate: number;
  embedding: number[] | null;
  embeddingModel: string | null;
}

export interface ChunkEmbeddingRow {
  id: string;
  embedding: number[];
  embeddingModel: string;
}

export interface MentionRow {
  chunkId: string;
  signature: string;
  nodeId: string | null;
  surface: string;
  confidence: number;
}

export interface SupportRow {
  chunkId: string;
  pageId: string;
  quote: string;
  confidence: number;
}

/** What every proposal row carries besides its shape: its calibrated and raw confidence, and why it was proposed. */
interface ProposalScore {
  /** The chance an admin approves it: rawConfidence calibrated (src/kg/calibration.ts). */
  confidence: number;
  rawConfidence: number;
  signals: string[];
  signalPattern: string;
}

export interface NodeProposalRow extends ProposalScore {
  signature: string;
  name: string;
  nodeType: string;
  /** The name's stem (src/kg/proposal-signals.ts): which earlier rejections it resembles. */
  nameStem: string;
  /** Other names for it (an LLM's aliases, the chunks' other spellings); approval adds them to the entity's. */
  aliases: string[];
  quote: string;
  extractor: string;
  model: string;
  support: SupportRow[];
}

export interface EdgeProposalRow extends ProposalScore {
  signature: string;
  sourceSignature: string;
  sourceName: string;
  predicate: string;
  targetSignature: string;
  targetName: string;
  quote: string;
  extractor: string;
  model: string;
  support: SupportRow[];
}

export interface NodeCandidate {
  id: string;
  signature: string;
  name: string;
  aliases: string[];
}

const vectorLiteral = (vector: number[] | null) => (vector ? vectorText(vector) : null);

/**
 * An upserted pending proposal keeps the best confidence seen, and that one's quote. Its support grows by the new
 * rows exactly: they come from chunks this transaction inserted, so none of them can exist already.
 */
// The best support is the one with the highest raw score: it gives the proposal its quote, signals and confidence
// (calibrated from that raw score by the caller, with the map in force now), and a node proposal its name and type.
// Equal scores go to the name, type and quote first in code-point order (`proposalOutranks` in page-extraction), so
// the proposal reads the same whichever page was extracted first.
const BETTER = `(EXCLUDED.raw_confidence, coalesce(kg_proposals.name, '') COLLATE "C", coalesce(kg_proposals.node_type, '') COLLATE "C", coalesce(kg_proposals.evidence_quote, '') COLLATE "C")
  > (coalesce(kg_proposals.raw_confidence, kg_proposals.confidence), coalesce(EXCLUDED.name, '') COLLATE "C", coalesce(EXCLUDED.node_type, '') COLLATE "C", coalesce(EXCLUDED.evidence_quote, '') COLLATE "C")`;
// Other names: those it had and the new support's, one per spelling without case (the first in code-point order),
// the first MAX_PROPOSAL_ALIASES of them without case: the same set whichever page came first.
const UNITED_ALIASES = `aliases = ARRAY(
           SELECT u.a FROM (SELECT DISTINCT ON (lower(x.a)) x.a FROM unnest(kg_proposals.aliases || EXCLUDED.aliases) AS x(a)
                             ORDER BY lower(x.a), x.a COLLATE "C") u
            ORDER BY lower(u.a) COLLATE "C", u.a COLLATE "C" LIMIT ${MAX_PROPOSAL_ALIASES}),`;
const BEST_NAME = `name = CASE WHEN ${BETTER} THEN EXCLUDED.name ELSE kg_proposals.name END,
         node_type = CASE WHEN ${BETTER} THEN EXCLUDED.node_type ELSE kg_proposals.node_type END,
         name_stem = CASE WHEN ${BETTER} THEN EXCLUDED.name_stem ELSE kg_proposals.name_stem END,`;
const BEST_CONFIDENCE = `support_count = kg_proposals.support_count + EXCLUDED.support_count,
         confidence = CASE WHEN ${BETTER} THEN EXCLUDED.confidence ELSE kg_proposals.confidence END,
         evidence_quote = CASE WHEN ${BETTER} THEN EXCLUDED.evidence_quote ELSE kg_proposals.evidence_quote END,
         signals = CASE WHEN ${BETTER} THEN EXCLUDED.signals ELSE kg_proposals.signals END,
         signal_pattern = CASE WHEN ${BETTER} THEN EXCLUDED.signal_pattern ELSE kg_proposals.signal_pattern END,
         raw_confidence = greatest(kg_proposals.raw_confidence, EXCLUDED.raw_confidence),
         updated_at = now()`;

/** The support rows of the proposals a statement just wrote (`written`), from the `support` array of each input row. */
const SUPPORT_FROM_WRITTEN = `supported AS (
         INSERT INTO kg_proposal_support (proposal_id, chunk_id, page_id, quote, confidence)
         SELECT w.id, s.chunk_id, s.page_id, s.quote, s.confidence
           FROM written w JOIN input x ON x.signature = w.signature
          CROSS JOIN LATERAL jsonb_to_recordset(x.support) AS s(chunk_id bigint, page_id uuid, quote text, confidence real)
         ON CONFLICT (proposal_id, chunk_id) DO NOTHING)`;

const scoreJson = (r: ProposalScore) => ({ confidence: r.confidence, raw_confidence: r.rawConfidence, signals: r.signals, signal_pattern: r.signalPattern });

const supportJson = (support: SupportRow[]) => support.map((s) => ({ chunk_id: s.chunkId, page_id: s.pageId, quote: s.quote, confidence: s.confidence }));

/**
 * All SQL of extraction: reading a page and its stored chunks, and the writes of one extraction run, each a single
 * set-based statement so a page costs a dozen statements whatever its size. Writes take the transaction's manager.
 */
@Injectable()
export class KgExtractionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * The write transaction of an extraction job. Its commit need not wait for the disk (lockPage turns
   * synchronous_commit off for it): the job's completion, which pg-boss commits right after, synchronously, flushes
   * the write-ahead log up to and including it. A crash in between loses at most this transaction, and the job, not
   * completed, runs again.
   */
  extractionTransaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * The page with what an extraction run needs to plan: whether the policy includes it (through kg_visible_pages,
   * the view every read path of the knowledge graph uses), its stored chunks, and its extraction record.
   */
  async findPage(pageId: string): Promise<PageState | null> {
    const rows: PageStateRow[] = await preparedQuery(
      this.dataSource,
      `SELECT p.id, p.title, p.body, p.cluster, p.content_hash AS "contentHash", p.deleted_at IS NOT NULL AS deleted,
              EXISTS (SELECT 1 FROM kg_visible_pages v WHERE v.id = p.id) AS included, ${STORED_CHUNKS_JSON} AS chunks,
              EXISTS (SELECT 1 FROM kg_nodes) AS "anyNode",
              r.page_id IS NOT NULL AS "hasRecord", r.source_hash AS "sourceHash", r.page_content_hash AS "pageContentHash",
              r.context_hash AS "contextHash", r.chunk_count AS "chunkCount", r.extractor, r.model, r.embedding_model AS "embeddingModel",
              (SELECT json_agg(json_build_array(l.target_key,
                                                json_build_object('title', t.title, 'cluster', t.cluster, 'type', t.frontmatter->>'type', 'path', t.vault_path,
                                                                  'head', left(t.body, ${LINKED_PAGE_HEAD_CHARS}))))
                 FROM page_links l JOIN pages t ON t.id = l.resolved_page_id AND t.deleted_at IS NULL
                WHERE l.from_page_id = p.id) AS "linkTitles", p.vault_path AS "vaultPath",
              (SELECT array_agg(l.target_key) FROM page_links l WHERE l.from_page_id = p.id AND l.resolved_attachment_id IS NOT NULL) AS "fileKeys"
         FROM pages p LEFT JOIN kg_page_extractions r ON r.page_id = p.id
        WHERE p.id = $1`,
      [pageId],
    );
    if (rows.length === 0) return null;
    const { id, title, body, cluster, contentHash, deleted, included, chunks, anyNode, hasRecord, linkTitles, vaultPath, fileKeys, ...record } = rows[0];
    return {
      id, title, body, cluster, contentHash, deleted, included, chunks: chunks ?? [], anyNode, record: hasRecord ? record : null,
      linkTitles: new Map(linkTitles ?? []),
      vaultPath,
      fileKeys: new Set(fileKeys ?? []),
    };
  }

  /**
   * The same inside the write transaction, after taking the page's locks: the page row is locked against saves until
   * the transaction ends (its source must not change under the write), and two runs for one page (a retry and a new
   * save, or two workers) take turns on the advisory lock. The locks are taken in a statement of their own and the
   * page is read in the next one: under READ COMMITTED a statement sees the database as it was when the statement
   * began, so a read in the statement that waited for the lock would miss the rows the run before it committed
   * (and insert its chunks a second time). The commit need not wait for the disk (see extractionTransaction).
   */
  async lockPage(pageId: string, tx: EntityManager): Promise<Omit<PageState, 'record' | 'anyNode' | 'linkTitles' | 'vaultPath' | 'fileKeys'> | null> {
    await preparedQuery(
      tx,
      `SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtextextended('kurate.kg.page:' || $1, 0)),
                             set_config('synchronous_commit', 'off', true)) lock, pages p
        WHERE p.id = $1::uuid FOR SHARE OF p`,
      [pageId],
    );
    const rows: Omit<PageStateRow, 'hasRecord' | 'anyNode' | 'linkTitles' | 'vaultPath' | 'fileKeys' | keyof PageExtractionRecord>[] = await preparedQuery(
      tx,
      `SELECT p.id, p.title, p.body, p.cluster, p.content_hash AS "contentHash", p.deleted_at IS NOT NULL AS deleted,
              EXISTS (SELECT 1 FROM kg_visible_pages v WHERE v.id = p.id) AS included, ${STORED_CHUNKS_JSON} AS chunks
         FROM pages p
        WHERE p.id = $1::uuid`,
      [pageId],
    );
    if (rows.length === 0) return null;
    return { ...rows[0], chunks: rows[0].chunks ?? [] };
  }

  /**
   * Approved entities nearest to the page, for the prompt's dictionary: those its chunks and the pages it links to
   * mention, most mentioned first. Read through kg_visible_nodes, so nothing known only from excluded pages leaks.
   */
  async nearbyNodes(pageId: string, limit: number): Promise<{ name: string; type: string }[]> {
    const near: { node_id: string; mentions: number }[] = await this.dataSource.query(
      `SELECT m.node_id::text AS node_id, count(*)::int AS mentions
         FROM kg_content_chunks c JOIN kg_mentions m ON m.chunk_id = c.id AND m.node_id IS NOT NULL
        WHERE c.page_id = ANY (ARRAY(SELECT $1::uuid UNION SELECT l.resolved_page_id FROM page_links l
                                      WHERE l.from_page_id = $1 AND l.resolved_page_id IS NOT NULL))
        GROUP BY m.node_id
        ORDER BY mentions DESC, m.node_id
        LIMIT $2`,
      [pageId, limit * 2],
    );
    if (near.length === 0) return [];
    const visible: { id: string; name: string; type: string }[] = await this.dataSource.query(
      `SELECT n.id::text AS id, n.name, n.node_type AS type FROM kg_visible_nodes n WHERE n.id = ANY($1::bigint[])`,
      [near.map((n) => n.node_id)],
    );
    const byId = new Map(visible.map((v) => [v.id, v]));
    return near.flatMap((n) => (byId.has(n.node_id) ? [{ name: byId.get(n.node_id)!.name, type: byId.get(n.node_id)!.type }] : [])).slice(0, limit);
  }

  /** Proposals supported by these chunks, and the nodes they mention: what removing them can change. */
  async dependentsOfChunks(chunkIds: string[], tx: EntityManager): Promise<{ proposalIds: string[]; nodeIds: string[] }> {
    if (chunkIds.length === 0) return { proposalIds: [], nodeIds: [] };
    const rows: { proposal_ids: string[] | null; node_ids: string[] | null }[] = await tx.query(
      `SELECT (SELECT array_agg(DISTINCT proposal_id::text) FROM kg_proposal_support WHERE chunk_id = ANY($1::bigint[])) AS proposal_ids,
              (SELECT array_agg(DISTINCT node_id::text) FROM kg_mentions WHERE chunk_id = ANY($1::bigint[]) AND node_id IS NOT NULL) AS node_ids`,
      [chunkIds],
    );
    return { proposalIds: rows[0].proposal_ids ?? [], nodeIds: rows[0].node_ids ?? [] };
  }

  /** Deletes chunks; their mentions and proposal support go with them (ON DELETE CASCADE). */
  async deleteChunks(chunkIds: string[], tx: EntityManager): Promise<void> {
    if (chunkIds.length === 0) return;
    await tx.query('DELETE FROM kg_content_chunks WHERE id = ANY($1::bigint[])', [chunkIds]);
  }

  /** Kept chunks whose place in the page changed: their position, and their section's anchor. */
  async moveChunks(moves: { id: string; position: number; anchor: string | null }[], tx: EntityManager): Promise<void> {
    if (moves.length === 0) return;
    await tx.query(
      `UPDATE kg_content_chunks c SET position = m.position, anchor = m.anchor, updated_at = now()
         FROM unnest($1::bigint[], $2::int[], $3::text[]) AS m(id, position, anchor) WHERE c.id = m.id`,
      [moves.map((m) => m.id), moves.map((m) => m.position), moves.map((m) => m.anchor)],
    );
  }

  /** Inserts a page's new chunks; returns their ids by position. */
  async insertChunks(pageId: string, chunks: NewChunkRow[], tx: EntityManager): Promise<Map<number, string>> {
    if (chunks.length === 0) return new Map();
    const rows: { id: string; position: number }[] = await preparedQuery(
      tx,
      `INSERT INTO kg_content_chunks (page_id, position, heading_path, anchor, text, content_hash, token_estimate, embedding, embedding_model, embedding_dims, search)
       SELECT $1, x.position, x.heading_path, x.anchor, x.text, x.content_hash, x.token_estimate, x.embedding::vector, x.embedding_model,
              CASE WHEN x.embedding IS NULL THEN NULL ELSE vector_dims(x.embedding::vector) END,
              setweight(to_tsvector('english', array_to_string(x.heading_path, ' ')), 'A') || setweight(to_tsvector('english', x.text), 'B')
         FROM jsonb_to_recordset($2::jsonb) AS x(position int, heading_path text[], anchor text, text text, content_hash text, token_estimate int,
                                                  embedding text, embedding_model text)
       RETURNING id::text AS id, position`,
      [
        pageId,
        JSON.stringify(
          chunks.map((c) => ({
            position: c.position,
            heading_path: c.headingPath,
            anchor: c.anchor,
            text: c.text,
            content_hash: c.contentHash,
            token_estimate: c.tokenEstimate,
            embedding: vectorLiteral(c.embedding),
            embedding_model: c.embedding ? c.embeddingModel : null,
          })),
        ),
      ],
    );
    return new Map(rows.map((r) => [r.position, r.id]));
  }

  async updateChunkEmbeddings(rows: ChunkEmbeddingRow[], db: EntityManager): Promise<void> {
    if (rows.length === 0) return;
    await db.query(
      `UPDATE kg_content_chunks c SET embedding = x.embedding::vector, embedding_model = x.embedding_model,
              embedding_dims = vector_dims(x.embedding::vector), updated_at = now()
         FROM jsonb_to_recordset($1::jsonb) AS x(id bigint, embedding text, embedding_model text)
        WHERE c.id = x.id`,
      [JSON.stringify(rows.map((r) => ({ id: r.id, embedding: vectorLiteral(r.embedding), embedding_model: r.embeddingModel })))],
    );
  }

  /**
   * Approved nodes an extraction may name: those carrying one of these signatures, directly or through
   * kg_node_signatures (renamed, merged, approved under another name), with the signature that led to them (`wanted`);
   * and those whose name (any type) or an alias may be one of these normalised names (`wanted` null; the caller
   * checks exactly).
   */
  async nodeCandidates(signatures: string[], normalisedNames: string[], tx: EntityManager): Promise<(NodeCandidate & { wanted: string | null })[]> {
    if (signatures.length === 0 && normalisedNames.length === 0) return [];
    return preparedQuery(
      tx,
      `SELECT s.wanted, n.id::text AS id, n.signature, n.name, n.aliases
         FROM unnest($1::text[]) AS s(wanted)
         JOIN kg_nodes n ON n.id = coalesce((SELECT x.id FROM kg_nodes x WHERE x.signature = s.wanted),
                                            (SELECT ns.node_id FROM kg_node_signatures ns WHERE ns.signature = s.wanted))
       UNION ALL
       SELECT NULL, n.id::text, n.signature, n.name, n.aliases
         FROM kg_nodes n
        WHERE lower(n.name) = ANY($2::text[])
           OR split_part(n.signature, '|', 1) = ANY($2::text[])
           OR EXISTS (SELECT 1 FROM unnest(n.aliases) a WHERE lower(btrim(a)) = ANY($2::text[]))`,
      [signatures, normalisedNames],
    );
  }

  /**
   * Pending entity proposals whose name, with case and `-`/`_` ignored, is one of these forms (variants of a name a
   * new mention may join rather than start a twin): through kg_proposals_pending_variant_idx.
   */
  async pendingNodeProposalsNamed(forms: string[], tx: EntityManager): Promise<{ signature: string; name: string; type: string; variant: string; confidence: number }[]> {
    if (forms.length === 0) return [];
    return preparedQuery(
      tx,
      `SELECT p.signature, p.name, p.node_type AS type, ${PROPOSAL_VARIANT} AS variant, COALESCE(p.raw_confidence, p.confidence)::float8 AS confidence
         FROM kg_proposals p
        WHERE p.kind = 'node' AND p.status = 'pending' AND ${PROPOSAL_VARIANT} = ANY($1::text[])
        ORDER BY p.support_count DESC, p.id`,
      [forms],
    );
  }

  /**
   * For pairs of names: on how many live pages all the words of each name occur, on how many all the words of both
   * do, and how many live pages there are. Read from search's word index (page_search_terms, stemmed as search stems,
   * written with every save, wikilinks' words included), so the answer depends on what the pages say, never on which
   * pages extraction reached first.
   */
  async namePairPages(pairs: { a: string; b: string }[], tx: EntityManager): Promise<{ na: number; nb: number; nab: number; n: number }[]> {
    if (pairs.length === 0) return [];
    const rows: { i: number; na: number; nb: number; nab: number; n: number }[] = await preparedQuery(
      tx,
      `WITH pairs AS MATERIALIZED (
              SELECT p.i, a.w AS a, b.w AS b, ARRAY(SELECT DISTINCT x FROM unnest(a.w || b.w) AS x) AS ab
                FROM jsonb_to_recordset($1::jsonb) AS p(i int, a text, b text),
                     LATERAL (SELECT ARRAY(SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('english', p.a)) u) AS w) a,
                     LATERAL (SELECT ARRAY(SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('english', p.b)) u) AS w) b),
            total AS MATERIALIZED (SELECT c.n::int AS n FROM (${SEARCH_CORPUS}) c)
       SELECT p.i, total.n,
              (SELECT count(*) FROM (SELECT t.page_id FROM page_search_terms t WHERE t.lexeme = ANY(p.a) GROUP BY t.page_id HAVING count(*) = cardinality(p.a)) x)::int AS na,
              (SELECT count(*) FROM (SELECT t.page_id FROM page_search_terms t WHERE t.lexeme = ANY(p.b) GROUP BY t.page_id HAVING count(*) = cardinality(p.b)) x)::int AS nb,
              (SELECT count(*) FROM (SELECT t.page_id FROM page_search_terms t WHERE t.lexeme = ANY(p.ab) GROUP BY t.page_id HAVING count(*) = cardinality(p.ab)) x)::int AS nab
         FROM pairs p, total
        WHERE cardinality(p.a) > 0 AND cardinality(p.b) > 0 AND NOT (p.a <@ p.b OR p.b <@ p.a)
        ORDER BY p.i`,
      [JSON.stringify(pairs.map((p, i) => ({ i, a: p.a, b: p.b })))],
    );
    const byIndex = new Map(rows.map((r) => [r.i, r]));
    // A name of stop words only has no words to count, and a name whose words are all in the other's (`journal`,
    // `Journal Note`) is on every page the other is on, which says nothing: neither goes together with anything.
    return pairs.map((_, i) => byIndex.get(i) ?? { na: 0, nb: 0, nab: 0, n: 0 });
  }

  /** Every chunk's search vector computed again from its heading path and text, as insertChunks writes it (after a restore). */
  async rebuildChunkSearch(): Promise<number> {
    const [, changed]: [unknown[], number] = await this.dataSource.query(
      `UPDATE kg_content_chunks
          SET search = setweight(to_tsvector('english', array_to_string(heading_path, ' ')), 'A') || setweight(to_tsvector('english', text), 'B')`,
    );
    return changed;
  }

  /**
   * Replaces a page's word counts (kg_page_terms) with these, outside a save of the page (a page saved before the
   * statistics existed, a restore's rebuild); a page in the trash keeps none. Only the rows that change are written:
   * an edit of one sentence rewrote every word of the page (every save does this), and where autovacuum is slow or off
   * the statistics read then waded through tens of thousands of dead rows. Unchanged rows are left out before the
   * upsert, which would lock each of them (ON CONFLICT locks a row before testing its WHERE). Rows are written in term
   * order, so two writers of one page (a save and a backfill) take their row locks in the same order. The page's row
   * is share-locked first and the counts written only while it is live: no foreign key checks each row (migration
   * 0036), and a page moved to the trash or deleted meanwhile keeps no counts.
   */
  async replacePageTerms(pageId: string, counts: TermCounts | null, tx: EntityManager | DataSource = this.dataSource): Promise<void> {
    // No counts: the statement's `gone` deletes every row of the page and nothing is inserted.
    await preparedQuery(tx, `WITH ${LIVE_PAGE_LOCKED}, ${termsReplaced('live')} SELECT 1`, termsParams(pageId, counts));
  }

  /**
   * A save's replacement of the page's word counts (as replacePageTerms) and read of its extraction state in one
   * statement: the state does not depend on the counts, and a save spares a round trip in its transaction. No counts
   * (an empty page) leave the page none. The save holds the page's row (it wrote it in this transaction).
   */
  async replaceTermsReadingState(pageId: string, counts: TermCounts | null, tx: EntityManager): Promise<ExtractionState> {
    return stateOf(await preparedQuery(tx, `WITH ${termsReplaced(null)} ${EXTRACTION_STATE}`, termsParams(pageId, counts)));
  }

  /**
   * The word counts of a page created in this transaction: a new page has no counts, no extraction record and no
   * chunk yet (its id is new), so its rows are simply inserted (a third of the cost of the replacing upsert) and its
   * state needs no read.
   */
  async insertTermsOfNewPage(pageId: string, counts: TermCounts, tx: EntityManager): Promise<ExtractionState> {
    if (counts.size > 0) {
      await preparedQuery(
        tx,
        `INSERT INTO kg_page_terms (page_id, term, lower, capitalised)
         SELECT $1, t.term, t.lower, t.capitalised FROM unnest($2::text[], $3::int[], $4::int[]) AS t(term, lower, capitalised)`,
        termsParams(pageId, counts),
      );
    }
    return { record: null, hasChunks: false };
  }

  /**
   * The wiki's statistics of these words: in how many live pages each occurs, and its lower-case and capitalised
   * counts summed over them; `pages` is the number of live pages (search's corpus count, a few rows of sums: counting
   * the live pages read every page's row, a millisecond of each extraction at 1,000 pages); `own` whether this page
   * has counts stored yet. Each word's rows are summed apart, from its range of the term index: one hash over the
   * rows of all the words (16,000 for a page of 120 words at 1,000 pages) took twice as long.
   */
  async termStats(pageId: string, terms: string[]): Promise<{ stats: TermStats; own: boolean }> {
    const rows: { term: string | null; pages: number; lower: number; capitalised: number; own: boolean; total: number }[] = await preparedQuery(
      this.dataSource,
      `WITH corpus AS MATERIALIZED (${SEARCH_CORPUS}),
            stats AS (
              SELECT w.term, s.pages, s.lower, s.capitalised FROM (SELECT DISTINCT u.term FROM unnest($2::text[]) AS u(term)) w
               CROSS JOIN LATERAL (
                 SELECT count(*)::int AS pages, sum(k.lower)::int AS lower, sum(k.capitalised)::int AS capitalised
                   FROM kg_page_terms k WHERE k.term = w.term) s
              WHERE s.pages > 0)
       SELECT s.term, s.pages, s.lower, s.capitalised,
              EXISTS (SELECT 1 FROM kg_page_terms o WHERE o.page_id = $1) AS own,
              (SELECT c.n FROM corpus c)::int AS total
         FROM (SELECT 1) one LEFT JOIN stats s ON true`,
      [pageId, terms],
    );
    const stats: TermStats = { pages: rows[0]?.total ?? 0, terms: {} };
    for (const row of rows) if (row.term !== null) stats.terms[row.term] = { pages: row.pages, lower: row.lower, capitalised: row.capitalised };
    return { stats, own: rows[0]?.own ?? false };
  }

  /**
   * Unlinked mentions whose signature is a key of `signatures` take its value, the signature of a pending node
   * proposal (in a chunk that has a mention of it already, or two variants of it, one mention carries it and the
   * others stay as they are). The caller holds the variant locks of the names, so no run of another page writes
   * such a mention meanwhile.
   */
  async adoptVariantMentions(signatures: Map<string, string>, tx: EntityManager): Promise<void> {
    if (signatures.size === 0) return;
    await preparedQuery(
      tx,
      `UPDATE kg_mentions m SET signature = x.target
         FROM (SELECT DISTINCT ON (v.chunk_id, t.target) v.id, t.target
                 FROM unnest($1::text[], $2::text[]) AS t(source, target)
                 JOIN kg_mentions v ON v.signature = t.source AND v.node_id IS NULL
                WHERE EXISTS (SELECT 1 FROM kg_proposals p WHERE p.kind = 'node' AND p.status = 'pending' AND p.signature = t.target)
                  AND NOT EXISTS (SELECT 1 FROM kg_mentions o WHERE o.chunk_id = v.chunk_id AND o.signature = t.target)
                ORDER BY v.chunk_id, t.target, v.id) x
        WHERE m.id = x.id`,
      [[...signatures.keys()], [...signatures.values()]],
    );
  }

  async insertMentions(rows: MentionRow[], tx: EntityManager): Promise<void> {
    if (rows.length === 0) return;
    await preparedQuery(
      tx,
      `INSERT INTO kg_mentions (chunk_id, signature, node_id, surface, confidence)
       SELECT x.chunk_id, x.signature, x.node_id, x.surface, x.confidence
         FROM jsonb_to_recordset($1::jsonb) AS x(chunk_id bigint, signature text, node_id bigint, surface text, confidence real)
       ON CONFLICT (chunk_id, signature) DO UPDATE
         SET confidence = greatest(kg_mentions.confidence, EXCLUDED.confidence), node_id = coalesce(kg_mentions.node_id, EXCLUDED.node_id)`,
      [JSON.stringify(rows.map((r) => ({ chunk_id: r.chunkId, signature: r.signature, node_id: r.nodeId, surface: r.surface, confidence: r.confidence })))],
    );
  }

  /**
   * Upserts pending node proposals by signature (confidence: the best seen; quote, name and type: the best one's) and adds their
   * support, in one statement. Rejected signatures and signatures of approved nodes are skipped. Returns the ids of
   * the proposals written.
   */
  async upsertNodeProposals(rows: NodeProposalRow[], tx: EntityManager): Promise<string[]> {
    if (rows.length === 0) return [];
    const written: { id: string }[] = await preparedQuery(
      tx,
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb)
           AS x(signature text, name text, node_type text, confidence real, raw_confidence real, signals text[], signal_pattern text,
                name_stem text, aliases text[], quote text, extractor text, model text, support jsonb)),
       written AS (
         INSERT INTO kg_proposals (kind, signature, name, node_type, confidence, raw_confidence, signals, signal_pattern, name_stem, aliases,
                                   evidence_quote, extractor, model, support_count)
         SELECT 'node', x.signature, x.name, x.node_type, x.confidence, x.raw_confidence, x.signals, x.signal_pattern, x.name_stem, x.aliases,
                x.quote, x.extractor, x.model, jsonb_array_length(x.support) FROM input x
          WHERE NOT EXISTS (SELECT 1 FROM kg_rejections r WHERE r.kind = 'node' AND r.signature = x.signature)
            AND NOT EXISTS (SELECT 1 FROM kg_nodes n WHERE n.signature = x.signature)
            AND NOT EXISTS (SELECT 1 FROM kg_node_signatures ns WHERE ns.signature = x.signature)
         ON CONFLICT (kind, signature) WHERE status = 'pending' DO UPDATE SET ${BEST_NAME} ${UNITED_ALIASES} ${BEST_CONFIDENCE}
         RETURNING id, signature),
       ${SUPPORT_FROM_WRITTEN}
       SELECT id::text AS id FROM written`,
      [JSON.stringify(rows.map((r) => ({
        signature: r.signature, name: r.name, node_type: r.nodeType, ...scoreJson(r), name_stem: r.nameStem, aliases: r.aliases, quote: r.quote, extractor: r.extractor,
        model: r.model, support: supportJson(r.support),
      })))],
    );
    return written.map((w) => w.id);
  }

  /**
   * The same for edge proposals; an edge already approved (typed, same endpoints and predicate) is not proposed again.
   * The signatures are locked first, in a statement of their own (src/kg/edge-signature-locks.ts): a review deciding
   * one of them commits before the upsert begins, which then sees its approval or rejection.
   */
  async upsertEdgeProposals(rows: EdgeProposalRow[], tx: EntityManager): Promise<string[]> {
    if (rows.length === 0) return [];
    await preparedQuery(tx, lockEdgeSignaturesSql('$1::text[]'), [rows.map((r) => r.signature)]);
    const written: { id: string }[] = await preparedQuery(
      tx,
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb)
           AS x(signature text, source_signature text, source_name text, predicate text, target_signature text, target_name text,
                confidence real, raw_confidence real, signals text[], signal_pattern text, quote text, extractor text, model text, support jsonb)),
       written AS (
         INSERT INTO kg_proposals (kind, signature, source_signature, source_name, predicate, target_signature, target_name,
                                   confidence, raw_confidence, signals, signal_pattern, evidence_quote, extractor, model, support_count)
         SELECT 'edge', x.signature, x.source_signature, x.source_name, x.predicate, x.target_signature, x.target_name,
                x.confidence, x.raw_confidence, x.signals, x.signal_pattern, x.quote, x.extractor, x.model, jsonb_array_length(x.support) FROM input x
          WHERE NOT EXISTS (SELECT 1 FROM kg_rejections r WHERE r.kind = 'edge' AND r.signature = x.signature)
            AND NOT EXISTS (SELECT 1 FROM kg_rejections r WHERE r.kind = 'node' AND r.signature IN (x.source_signature, x.target_signature))
            AND NOT EXISTS (
              SELECT 1 FROM kg_edges e
                JOIN kg_nodes s ON s.id = e.source_node_id JOIN kg_nodes t ON t.id = e.target_node_id
               WHERE e.kind = 'typed' AND e.predicate = x.predicate AND s.signature = x.source_signature AND t.signature = x.target_signature)
         ON CONFLICT (kind, signature) WHERE status = 'pending' DO UPDATE SET ${BEST_CONFIDENCE}
         RETURNING id, signature),
       ${SUPPORT_FROM_WRITTEN}
       SELECT id::text AS id FROM written`,
      [
        JSON.stringify(
          rows.map((r) => ({
            signature: r.signature, source_signature: r.sourceSignature, source_name: r.sourceName, predicate: r.predicate,
            target_signature: r.targetSignature, target_name: r.targetName, ...scoreJson(r), quote: r.quote,
            extractor: r.extractor, model: r.model, support: supportJson(r.support),
          })),
        ),
      ],
    );
    return written.map((w) => w.id);
  }

  /**
   * Brings proposals up to date with their support: its count; for pending ones that lost support, the best
   * remaining raw score and quote (the caller calibrates the score again); a pending proposal with no support left is
   * retired.
   */
  async refreshProposals(proposalIds: string[], withdrawn: string[], tx: EntityManager): Promise<void> {
    if (proposalIds.length === 0) return;
    await tx.query(
      `UPDATE kg_proposals p
          SET support_count = coalesce(s.n, 0),
              raw_confidence = CASE WHEN p.id = ANY($2::bigint[]) AND p.status = 'pending' AND s.best IS NOT NULL THEN s.best ELSE p.raw_confidence END,
              evidence_quote = CASE WHEN p.id = ANY($2::bigint[]) AND p.status = 'pending' AND s.best_quote IS NOT NULL THEN s.best_quote ELSE p.evidence_quote END,
              status = CASE WHEN p.status = 'pending' AND coalesce(s.n, 0) = 0 THEN 'retired' ELSE p.status END,
              updated_at = now()
         FROM (SELECT DISTINCT id FROM unnest($1::bigint[]) AS u(id) ORDER BY id) AS ids
         LEFT JOIN LATERAL (
           SELECT count(*)::int AS n, max(confidence) AS best,
                  (array_agg(quote ORDER BY confidence DESC NULLS LAST, chunk_id))[1] AS best_quote
             FROM kg_proposal_support WHERE proposal_id = ids.id) s ON true
        WHERE p.id = ids.id`,
      [proposalIds, withdrawn],
    );
  }

  /**
   * Co-mention edges of these nodes, recomputed from the mentions: one per pair of approved nodes sharing a chunk
   * (source id < target id), weighted by the number of shared chunks; an extracted pair that no longer shares one goes.
   */
  async refreshCoMentions(nodeIds: string[], tx: EntityManager): Promise<void> {
    if (nodeIds.length === 0) return;
    await tx.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
       SELECT least(a.node_id, o.node_id), greatest(a.node_id, o.node_id), 'co_mention', 'co_mention',
              count(DISTINCT a.chunk_id), 'extracted', 'extraction'
         FROM kg_mentions a JOIN kg_mentions o ON o.chunk_id = a.chunk_id AND o.node_id IS NOT NULL AND o.node_id <> a.node_id
        WHERE a.node_id = ANY($1::bigint[])
        GROUP BY 1, 2
        ORDER BY 1, 2
       ON CONFLICT (source_node_id, target_node_id, kind, predicate)
       DO UPDATE SET weight = EXCLUDED.weight, updated_at = now() WHERE kg_edges.weight IS DISTINCT FROM EXCLUDED.weight`,
      [nodeIds],
    );
    await tx.query(
      `DELETE FROM kg_edges e
        WHERE e.kind = 'co_mention' AND e.origin = 'extracted'
          AND (e.source_node_id = ANY($1::bigint[]) OR e.target_node_id = ANY($1::bigint[]))
          AND NOT EXISTS (SELECT 1 FROM kg_mentions a JOIN kg_mentions o ON o.chunk_id = a.chunk_id
                           WHERE a.node_id = e.source_node_id AND o.node_id = e.target_node_id)`,
      [nodeIds],
    );
  }

  /** The page's extraction record (and its open failures are resolved: the extraction succeeded). */
  async saveExtractionRecord(pageId: string, record: PageExtractionRecord & { extractionCalls: number }, tx: EntityManager): Promise<void> {
    await preparedQuery(
      tx,
      `WITH resolved AS (UPDATE kg_extraction_failures SET resolved_at = now() WHERE page_id = $1 AND resolved_at IS NULL)
       INSERT INTO kg_page_extractions (page_id, source_hash, page_content_hash, context_hash, chunk_count, extraction_calls,
                                        extractor, model, embedding_model, extracted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())
       ON CONFLICT (page_id) DO UPDATE SET source_hash = EXCLUDED.source_hash, page_content_hash = EXCLUDED.page_content_hash,
              context_hash = EXCLUDED.context_hash, chunk_count = EXCLUDED.chunk_count,
              extraction_calls = kg_page_extractions.extraction_calls + EXCLUDED.extraction_calls,
              extractor = EXCLUDED.extractor, model = EXCLUDED.model, embedding_model = EXCLUDED.embedding_model, extracted_at = now()`,
      [pageId, record.sourceHash, record.pageContentHash, record.contextHash, record.chunkCount, record.extractionCalls,
        record.extractor, record.model, record.embeddingModel],
    );
  }

  /** A save that changed nothing extraction reads (e.g. only tags): the record is still current for the new version. */
  async touchExtractionRecord(pageId: string, pageContentHash: string, tx: EntityManager): Promise<void> {
    await preparedQuery(tx, 'UPDATE kg_page_extractions SET page_content_hash = $2 WHERE page_id = $1 AND page_content_hash <> $2', [pageId, pageContentHash]);
  }

  /** The source of the page's previous version (title and full text), for pages whose rows predate any record. */
  async previousVersion(pageId: string, version: number, tx: EntityManager): Promise<{ title: string; body: string } | null> {
    if (version <= 1) return null;
    const rows: { title: string; body: string }[] = await tx.query(
      'SELECT title, body FROM page_revisions WHERE page_id = $1 AND version = $2',
      [pageId, version - 1],
    );
    return rows[0] ?? null;
  }

  async recordFailure(
    failure: { pageId: string; jobId: string; sourceHash: string; backend: string; model: string | null; reason: string; attempts: number },
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO kg_extraction_failures (page_id, job_id, source_hash, backend, model, reason, attempts)
       SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM pages WHERE id = $1)
       ON CONFLICT (job_id) DO UPDATE SET reason = EXCLUDED.reason, attempts = EXCLUDED.attempts, failed_at = now(), resolved_at = NULL`,
      [failure.pageId, failure.jobId, failure.sourceHash, failure.backend, failure.model, failure.reason, failure.attempts],
    );
  }
}

/** What the save hook needs to decide: the page's extraction record, and whether it has any chunk. */
export interface ExtractionState {
  record: PageExtractionRecord | null;
  hasChunks: boolean;
}

/** Page $1's row, share-locked while it is live (no row when it is in the trash or gone): see replacePageTerms. */
const LIVE_PAGE_LOCKED = `live AS MATERIALIZED (SELECT p.id FROM pages p WHERE p.id = $1 AND p.deleted_at IS NULL FOR SHARE)`;

/**
 * Replaces page $1's word counts with the terms $2 and their lower-case ($3) and capitalised ($4) counts: only the
 * rows that change are written (replacePageTerms). `guard` names a CTE whose one row must exist for anything to be
 * inserted (LIVE_PAGE_LOCKED), or is null when the caller holds the page's row.
 */
function termsReplaced(guard: 'live' | null): string {
  return `fresh AS MATERIALIZED (SELECT t.term, t.lower, t.capitalised FROM unnest($2::text[], $3::int[], $4::int[]) AS t(term, lower, capitalised)),
            gone AS (DELETE FROM kg_page_terms k WHERE k.page_id = $1 AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.term = k.term)),
            written AS (
              INSERT INTO kg_page_terms AS k (page_id, term, lower, capitalised)
                   SELECT $1, f.term, f.lower, f.capitalised FROM fresh f${guard ? ` JOIN ${guard} ON true` : ''}
                    WHERE NOT EXISTS (SELECT 1 FROM kg_page_terms o WHERE o.page_id = $1 AND o.term = f.term AND (o.lower, o.capitalised) = (f.lower, f.capitalised))
                    ORDER BY f.term
                  ON CONFLICT (page_id, term) DO UPDATE SET lower = EXCLUDED.lower, capitalised = EXCLUDED.capitalised)`;
}

function termsParams(pageId: string, counts: TermCounts | null): unknown[] {
  if (!counts) return [pageId, [], [], []];
  const terms = [...counts.keys()];
  return [pageId, terms, terms.map((t) => counts.get(t)!.lower), terms.map((t) => counts.get(t)!.capitalised)];
}

/** Page $1's extraction record (all nulls and `present` false when it has none) and whether it has any chunk. */
const EXTRACTION_STATE = `SELECT r.page_id IS NOT NULL AS present, r.source_hash AS "sourceHash", r.page_content_hash AS "pageContentHash",
              r.context_hash AS "contextHash", r.chunk_count AS "chunkCount", r.extractor, r.model, r.embedding_model AS "embeddingModel",
              EXISTS (SELECT 1 FROM kg_content_chunks c WHERE c.page_id = $1) AS "hasChunks"
         FROM (SELECT 1) one LEFT JOIN kg_page_extractions r ON r.page_id = $1`;

function stateOf(rows: (PageExtractionRecord & { hasChunks: boolean; present: boolean })[]): ExtractionState {
  const { present, hasChunks, ...record } = rows[0];
  return { record: present ? record : null, hasChunks };
}
