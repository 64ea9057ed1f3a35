import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { KurateConfig } from '../config/kurate-config.js';
import { JobError } from '../jobs/job-failure.js';
import { ENTITY_TYPES, EXTRACTOR, type EntityType, type ExtractionRequest, type ExtractionResult, type Extractor, type TermStats } from '../extractors/extraction.types.js';
import { normaliseEntityType } from '../extractors/vocabulary.js';
import { CO_OCCURRENCE } from '../extractors/builtin/builtin.extractor.js';
import { variantKey } from '../extractors/builtin/name-forms.js';
import { isAttachmentTarget } from '../extractors/attachments.js';
import { EMBEDDER, type Embedder } from '../embedders/embedder.js';
import { extractLinks } from '../pages/markdown/wikilinks.js';
import { leadingHeading } from '../pages/markdown/frontmatter.js';
import { wholeWordIndex } from '../common/whole-words.js';
import { CallLimiter } from './call-limiter.js';
import { planChunks, type ChunkPlan } from './chunk-plan.js';
import type { Chunk } from './chunker.js';
import { ExtractionCache } from './extraction-cache.js';
import { chunkEmbeddingText, extractionSourceOf, type ExtractionSource } from './extraction-source.js';
import {
  KgExtractionRepository, type ChunkEmbeddingRow, type LinkedPage, type EdgeProposalRow, type MentionRow, type NewChunkRow, type NodeProposalRow,
  type PageForExtraction,
} from './kg-extraction.repository.js';
import { hierarchyPlace, type HierarchyPlace } from './page-hierarchy.js';
import { chunkPage, type AnchoredChunk } from './page-chunks.js';
import { termCounts, termForms } from './term-stats.js';
import { calibrate, type CalibrationMap } from './calibration.js';
import { KgCalibrationService } from './kg-calibration.service.js';
import { nameStem, signalPattern } from './proposal-signals.js';
import { edgeSignature, nodeSignature, normaliseName } from './signatures.js';
import { otherNames, proposalOutranks, variantForms, variantSignatures } from './name-variants.js';
import { lockNameVariants } from './variant-locks.js';
import { Metrics } from '../metrics/metrics.js';

/** The result of one extraction run of one page (stored as the job's output). */
export interface PageExtractionOutcome {
  status: 'extracted' | 'skipped';
  /** Why nothing was written (skipped only). */
  reason?: string;
  chunks: number;
  newChunks: number;
  removedChunks: number;
  /** Extraction calls made by this run (new chunks; results kept from a failed earlier attempt are not called again). */
  calls: number;
  reusedResults: number;
  embedded: number;
  proposals: number;
  mentions: number;
  /**
   * What validation dropped or down-weighted in this run's answers (an unverifiable quote, an unknown endpoint, …):
   * how many, and the first few with their reasons. Kept in the job's output and logged at debug level.
   */
  dropped: number;
  droppedItems: { item: string; reason: string }[];
}

const DROPPED_SHOWN = 10;

/** Why a running job was aborted from outside (e.g. its page was just excluded): it ends as skipped, not failed. */
export class ExtractionCancelled extends Error {}

const KNOWN_ENTITIES = 50;
/** Words whose corpus statistics one extraction asks for, at most. */
const MAX_STAT_TERMS = 2000;
const EMBED_BATCH = 32;
/**
 * A `related_to` from co-occurrence needs its pair's words together on this many live pages, and this PMI (log2,
 * over pages) at least.
 */
const MIN_SHARED_PAGES = 3;
const MIN_PMI = 1;

const SKIPPED = (reason: string, chunks = 0): PageExtractionOutcome => ({
  status: 'skipped', reason, chunks, newChunks: 0, removedChunks: 0, calls: 0, reusedResults: 0, embedded: 0, proposals: 0, mentions: 0,
  dropped: 0, droppedItems: [],
});

/**
 * Extracts one page, incrementally: it re-chunks the page, asks the extractor only about chunks whose content hash
 * is new, embeds new chunks, and then writes everything in ONE transaction (chunks, mentions, proposals and their
 * support, withdrawn support, co-mention edges, the extraction record), so a run leaves all its rows or none.
 * No database connection is held during the calls to the extractor and the embedder.
 */
@Injectable()
export class PageExtractionService {
  private readonly limiter: CallLimiter;
  private readonly cache = new ExtractionCache();
  private readonly logger = new Logger(PageExtractionService.name);

  constructor(
    private readonly repository: KgExtractionRepository,
    private readonly config: KurateConfig,
    @Inject(EXTRACTOR) private readonly extractor: Extractor,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    private readonly calibration: KgCalibrationService,
    private readonly metrics: Metrics,
  ) {
    this.limiter = new CallLimiter(config.extraction.limits.concurrency, config.extraction.limits.ratePerMinute);
  }

  get backend(): { extractor: Extractor['name']; model: string; embedder: Embedder['name']; embeddingModel: string } {
    return { extractor: this.extractor.name, model: this.extractor.model, embedder: this.embedder.name, embeddingModel: this.embedder.model };
  }

  async extractPage(pageId: string, signal?: AbortSignal): Promise<PageExtractionOutcome> {
    try {
      const outcome = await this.run(pageId, signal);
      this.metrics.extractedPages.inc({ outcome: outcome.status });
      return outcome;
    } catch (error) {
      if (signal?.aborted && signal.reason instanceof ExtractionCancelled) {
        this.metrics.extractedPages.inc({ outcome: 'skipped' });
        return SKIPPED(signal.reason.message);
      }
      this.metrics.extractedPages.inc({ outcome: 'failed' });
      throw error;
    }
  }

  private async run(pageId: string, signal?: AbortSignal): Promise<PageExtractionOutcome> {
    const page = await this.repository.findPage(pageId);
    if (!page || page.deleted) return SKIPPED('the page no longer exists or is in the trash');
    // Checked before any call: an excluded page is never sent to a backend.
    if (!page.included) return SKIPPED('the inclusion policy excludes the page');

    const source = extractionSourceOf(page);
    const chunks = chunkPage(source.markdown);
    const stored = page.chunks;
    const record = page.record;
    const plan = planChunks(chunks, stored);
    const contextChanged = record !== null && record.contextHash !== source.contextHash;
    const staleModel = new Set(stored.filter((s) => s.embeddingModel !== this.embedder.model).map((s) => s.id));
    const reembed = plan.keep.filter((k) => contextChanged || staleModel.has(k.id));

    const results = await this.extractChunks(page, plan, source.markdown, signal);
    const byPosition = new Map(chunks.map((c) => [c.position, c]));
    const embeddings = await this.embedChunks(page, [...plan.add, ...reembed.map((k) => byPosition.get(k.position)!)], signal);
    signal?.throwIfAborted();
    // This wiki's reviews retune the calibration once there are enough (a refit that fails must not fail the page).
    await this.calibration.refitIfDue().catch((error: unknown) => this.logger.warn(`Calibration refit failed: ${(error as Error).message}`));
    const maps = await this.calibration.mapsFor(this.extractor.name);

    const outcome = await this.repository.extractionTransaction((tx) =>
      this.write(page, source, chunks, results.byHash, embeddings, { calls: results.calls, reused: results.reused }, maps, tx),
    );
    if (outcome.status === 'extracted') for (const key of results.cacheKeys) this.cache.delete(key);
    return outcome;
  }

  /** One extraction call per new content hash, through the backend's limiter; all settle before an error is thrown. */
  private async extractChunks(page: PageForExtraction & { anyNode: boolean; linkTitles: Map<string, LinkedPage>; vaultPath: string | null; fileKeys: Set<string> }, plan: ChunkPlan, markdown: string, signal?: AbortSignal) {
    const byHash = new Map<string, ExtractionResult>();
    const cacheKeys: string[] = [];
    let calls = 0;
    let reused = 0;
    if (plan.extract.length === 0) return { byHash, cacheKeys, calls, reused };
    const chunkOf = new Map(plan.add.map((c) => [c.contentHash, c]));
    const known = page.anyNode ? await this.repository.nearbyNodes(page.id, KNOWN_ENTITIES) : [];
    const linkTitles = page.linkTitles;
    const termStats = this.extractor.name === 'builtin' ? await this.termStatsOf(page, markdown, plan) : undefined;
    const knownEntities = known.map((k) => ({ name: k.name, type: asEntityType(k.type) }));
    const pageHeading = leadingHeading(markdown);
    const settled = await Promise.allSettled(
      plan.extract.map(async (hash) => {
        const chunk = chunkOf.get(hash)!;
        const key = ExtractionCache.key({ extractor: this.extractor.name, model: this.extractor.model, pageTitle: page.title, contentHash: hash });
        cacheKeys.push(key);
        const cached = this.cache.get(key);
        if (cached) {
          reused++;
          byHash.set(hash, cached);
          return;
        }
        const request: ExtractionRequest = { pageTitle: page.title, headingPath: chunk.headingPath, chunkText: chunk.text, knownEntities, ...linkTargetsOf(chunk.text, linkTitles, page.fileKeys, page.vaultPath), ...(pageHeading ? { pageHeading } : {}), termStats };
        const result = await this.limiter.run(async () => {
          try {
            return await this.extractor.extract(request, signal);
          } catch (error) {
            const wait = (error as { retryAfterMs?: unknown }).retryAfterMs;
            if (typeof wait === 'number' && wait > 0) this.limiter.pauseFor(wait);
            throw error;
          }
        }, signal);
        calls++;
        this.cache.set(key, result);
        byHash.set(hash, result);
      }),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return { byHash, cacheKeys, calls, reused };
  }

  /**
   * The wiki's statistics of the words of this page that could be names: those it capitalises inside a sentence and
   * those of its title and headings (for the built-in extractor). A page saved before the statistics existed gets its
   * own counts stored first.
   */
  private async termStatsOf(page: PageForExtraction, markdown: string, plan: ChunkPlan): Promise<TermStats> {
    const counts = termCounts(markdown);
    const words = new Set([...counts].filter(([, c]) => c.capitalised > 0).map(([w]) => w));
    for (const text of [page.title, ...plan.add.flatMap((c) => c.headingPath)]) {
      for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (word.length > 1) words.add(word);
    }
    const terms = [...words].flatMap(termForms).slice(0, MAX_STAT_TERMS);
    let { stats, own } = await this.repository.termStats(page.id, terms);
    if (!own && counts.size > 0) {
      await this.repository.replacePageTerms(page.id, counts);
      ({ stats } = await this.repository.termStats(page.id, terms));
    }
    return stats;
  }

  private async embedChunks(page: PageForExtraction, chunks: Chunk[], signal?: AbortSignal): Promise<Map<string, number[]>> {
    const vectors = new Map<string, number[]>();
    const unique = [...new Map(chunks.map((c) => [c.contentHash, c])).values()];
    for (let i = 0; i < unique.length; i += EMBED_BATCH) {
      const batch = unique.slice(i, i + EMBED_BATCH);
      const texts = batch.map((c) => chunkEmbeddingText({ title: page.title, cluster: page.cluster, headingPath: c.headingPath }, c.text));
      const embedded = await this.embedder.embed(texts, signal);
      if (embedded.length !== batch.length) throw new JobError(`The embedder answered ${embedded.length} vectors for ${batch.length} texts.`, true);
      batch.forEach((c, k) => vectors.set(c.contentHash, embedded[k]));
    }
    return vectors;
  }

  private async write(
    page: PageForExtraction,
    source: ExtractionSource,
    chunks: AnchoredChunk[],
    results: Map<string, ExtractionResult>,
    embeddings: Map<string, number[]>,
    counts: { calls: number; reused: number },
    maps: Record<'node' | 'edge', CalibrationMap>,
    tx: EntityManager,
  ): Promise<PageExtractionOutcome> {
    const current = await this.repository.lockPage(page.id, tx);
    if (!current || current.deleted) return SKIPPED('the page no longer exists or is in the trash', chunks.length);
    // The page was saved meanwhile: that save enqueued its own job, which extracts the newer text.
    const unchanged = current.title === page.title && current.cluster === page.cluster && current.body === page.body;
    if (!unchanged && extractionSourceOf(current).sourceHash !== source.sourceHash) {
      return SKIPPED('the page changed during extraction; a newer job extracts it', chunks.length);
    }
    if (!current.included) return SKIPPED('the inclusion policy excludes the page', chunks.length);

    // Planned again under the lock: another run for this page may have committed meanwhile.
    const plan = planChunks(chunks, current.chunks);
    const missing = plan.extract.filter((hash) => !results.has(hash));
    if (missing.length > 0) throw new JobError('The page’s stored chunks changed while it was being extracted; trying again.', true, undefined, true);

    await this.lockProposedNames(plan.add.map((c) => results.get(c.contentHash)!), tx);
    const dependents = await this.repository.dependentsOfChunks(plan.remove, tx);
    await this.repository.deleteChunks(plan.remove, tx);
    await this.repository.moveChunks(plan.keep.filter((k) => k.moved), tx);
    const model = this.embedder.model;
    const newRows: NewChunkRow[] = plan.add.map((c) => ({
      position: c.position, headingPath: c.headingPath, anchor: c.anchor, text: c.text, contentHash: c.contentHash, tokenEstimate: c.tokenEstimate,
      embedding: embeddings.get(c.contentHash) ?? null, embeddingModel: model,
    }));
    const chunkIds = await this.repository.insertChunks(page.id, newRows, tx);
    const byPosition = new Map(chunks.map((c) => [c.position, c]));
    const reembedded: ChunkEmbeddingRow[] = plan.keep
      .map((k) => ({ id: k.id, vector: embeddings.get(byPosition.get(k.position)!.contentHash) }))
      .filter((r): r is { id: string; vector: number[] } => r.vector !== undefined)
      .map((r) => ({ id: r.id, embedding: r.vector, embeddingModel: model }));
    await this.repository.updateChunkEmbeddings(reembedded, tx);

    const found = await this.collect(page, plan.add.map((c) => ({ chunkId: chunkIds.get(c.position)!, text: c.text, result: results.get(c.contentHash)! })), maps, tx);
    await this.repository.insertMentions(found.mentions, tx);
    const edgeProposals = await this.keepSignificant(found.edgeProposals, found.coOccurrenceOnly, tx);
    const proposalIds = [
      ...(await this.repository.upsertNodeProposals(found.nodeProposals, tx)),
      ...(await this.repository.upsertEdgeProposals(edgeProposals, tx)),
    ];
    // Mentions that runs of other pages wrote before anyone proposed these names (under another spelling or type)
    // join the proposals now, so that approving one links them whichever page was extracted first.
    await this.repository.adoptVariantMentions(variantSignatures(found.nodeProposals), tx);
    // Proposals that lost support are brought up to date (count, best quote; retired when none is left); the ones
    // written above counted their new support themselves.
    await this.repository.refreshProposals(dependents.proposalIds, dependents.proposalIds, tx);
    await this.calibration.recalibrate(dependents.proposalIds, tx);
    await this.repository.refreshCoMentions([...new Set([...dependents.nodeIds, ...found.linkedNodeIds])], tx);

    const first = [...results.values()][0];
    await this.repository.saveExtractionRecord(
      page.id,
      {
        sourceHash: source.sourceHash, pageContentHash: current.contentHash, contextHash: source.contextHash, chunkCount: chunks.length,
        extractionCalls: counts.calls, extractor: first?.extractor ?? this.extractor.name, model: first?.model ?? this.extractor.model,
        embeddingModel: model,
      },
      tx,
    );
    const dropped = plan.extract.flatMap((hash) => results.get(hash)!.dropped);
    if (dropped.length > 0) {
      this.logger.debug(`Page ${page.id}: ${dropped.length} extracted item(s) dropped or down-weighted, e.g. ${dropped.slice(0, 3).map((d) => `${d.item}: ${d.reason}`).join('; ')}`);
    }
    return {
      status: 'extracted', chunks: chunks.length, newChunks: plan.add.length, removedChunks: plan.remove.length, calls: counts.calls,
      reusedResults: counts.reused, embedded: newRows.length + reembedded.length, proposals: proposalIds.length, mentions: found.mentions.length,
      dropped: dropped.length, droppedItems: dropped.slice(0, DROPPED_SHOWN),
    };
  }

  /**
   * Mentions, node proposals and edge proposals from the new chunks' results. An entity that an approved node
   * already names (its signature, a signature that leads to it, or its name or an alias) becomes a mention of that
   * node and is not proposed; below the confidence threshold only the mention is kept.
   */
  private async collect(page: PageForExtraction, extracted: { chunkId: string; text: string; result: ExtractionResult }[], maps: Record<'node' | 'edge', CalibrationMap>, tx: EntityManager) {
    const threshold = this.config.extraction.confidenceThreshold;
    const raw = extracted.flatMap(({ chunkId, text, result }) =>
      result.entities.map((e) => ({ chunkId, text, result, entity: e, signature: nodeSignature(e.name, e.type), normalised: normaliseName(e.name) })),
    );
    const resolved = await this.resolveNodes(raw, tx);
    // Variants of one name (case, plural, a page's file name, another type) become one proposal: the pending one that
    // already has a variant of the name, else the best supported of this run; its best-scored spelling and type name
    // it. The other spellings stay as the mentions' surfaces, which become aliases when the proposal is approved.
    const { into: canonical, pending: pendingElsewhere } = await this.canonicalVariants(
      raw.filter((e) => !resolved.has(e.signature) && !resolved.has(`name:${e.normalised}`)),
      tx,
    );
    const entities = raw.map((e) => {
      const into = canonical.get(e.signature);
      return into ? { ...e, signature: into.signature } : e;
    });

    const mentions = new Map<string, MentionRow>();
    const nodeProposals = new Map<string, NodeProposalRow>();
    for (const { chunkId, text, result, entity, signature, normalised } of entities) {
      const node = resolved.get(signature) ?? resolved.get(`name:${normalised}`) ?? null;
      const key = `${chunkId}\u0000${signature}`;
      const seen = mentions.get(key);
      if (!seen || seen.confidence < entity.confidence) mentions.set(key, { chunkId, signature, nodeId: node?.id ?? null, surface: writtenSurface(entity, text), confidence: entity.confidence });
      if (node || entity.confidence < threshold) continue;
      const proposal = nodeProposals.get(signature) ?? {
        signature, name: entity.name, nodeType: entity.type, nameStem: nameStem(entity.name), aliases: [], confidence: 0, rawConfidence: -1, signals: [],
        signalPattern: '', quote: entity.evidence, extractor: result.extractor, model: result.model, support: [],
      };
      proposal.aliases = otherNames(proposal.aliases, [...(entity.surfaces ?? []), ...(entity.aliases ?? [])]);
      // The best-scored spelling names the proposal, here and in the upsert (the same order), whichever page came first.
      if (proposalOutranks(entity, proposal)) {
        Object.assign(proposal, { name: entity.name, nodeType: entity.type, nameStem: nameStem(entity.name) }, scored(entity, maps.node));
      }
      addSupport(proposal.support, { chunkId, pageId: page.id, quote: entity.evidence, confidence: entity.confidence });
      nodeProposals.set(signature, proposal);
    }

    const edgeProposals = new Map<string, EdgeProposalRow>();
    /** Edge proposals that only two names sharing a sentence support, with their endpoints' names. */
    const coOccurrenceOnly = new Map<string, [string, string]>();
    const typedSupport = new Set<string>();
    for (const { chunkId, result } of extracted) {
      /**
       * A relation's end: an approved node, or an entity proposed from this page. A name the chunk itself scores
       * below the threshold (one mention) may still be the end of a relation a sentence states (`stated`) when
       * another chunk of the page proposes it, or another page already has (a pending proposal); `confidence` is then
       * that proposal's best for it.
       */
      const endpoint = (name: string, stated: boolean) => {
        const entity = result.entities.find((e) => e.name === name) ?? result.entities.find((e) => normaliseName(e.name) === normaliseName(name));
        if (!entity) return null;
        const own = nodeSignature(entity.name, entity.type);
        const node = resolved.get(own) ?? resolved.get(`name:${normaliseName(entity.name)}`);
        const into = canonical.get(own);
        const mention = into?.signature ?? own;
        if (node) return { signature: node.signature, name: entity.name, mention, confidence: entity.confidence };
        if (entity.confidence >= threshold) return { signature: mention, name: into?.name ?? entity.name, mention, confidence: entity.confidence };
        if (!stated) return null;
        const proposed = nodeProposals.get(mention);
        if (proposed) return { signature: mention, name: proposed.name, mention, confidence: proposed.rawConfidence };
        const elsewhere = pendingElsewhere.get(mention);
        return elsewhere ? { signature: mention, name: elsewhere.name, mention, confidence: elsewhere.confidence } : null;
      };
      for (const stated of result.relations) {
        // A typed predicate read off the sentence between two names (not through a pronoun): as credible as the
        // weaker of the two things it relates, as the page proposes them.
        const isStated = stated.predicate !== 'related_to' && (stated.signals ?? []).includes('sentence-pattern') && !(stated.signals ?? []).includes('page-subject');
        if (stated.confidence < threshold && !isStated) continue;
        const source = endpoint(stated.source, isStated);
        const target = endpoint(stated.target, isStated);
        if (!source || !target || source.signature === target.signature) continue;
        const relation = isStated ? { ...stated, confidence: round3(Math.max(stated.confidence, Math.min(source.confidence, target.confidence, MAX_STATED_CONFIDENCE))) } : stated;
        if (relation.confidence < threshold) continue;
        const signature = edgeSignature(source.signature, relation.predicate, target.signature);
        const proposal = edgeProposals.get(signature) ?? {
          signature, sourceSignature: source.signature, sourceName: source.name, predicate: relation.predicate, targetSignature: target.signature,
          targetName: target.name, confidence: 0, rawConfidence: -1, signals: [], signalPattern: '', quote: relation.evidence, extractor: result.extractor,
          model: result.model, support: [],
        };
        if (relation.confidence > proposal.rawConfidence) Object.assign(proposal, scored(relation, maps.edge));
        addSupport(proposal.support, { chunkId, pageId: page.id, quote: relation.evidence, confidence: relation.confidence });
        edgeProposals.set(signature, proposal);
        const onlyShared = relation.predicate === 'related_to' && relation.signals?.length === 1 && relation.signals[0] === CO_OCCURRENCE;
        if (onlyShared && !typedSupport.has(signature)) coOccurrenceOnly.set(signature, [source.name, target.name]);
        else {
          typedSupport.add(signature);
          coOccurrenceOnly.delete(signature);
        }
      }
    }
    const linkedNodeIds = [...new Set([...mentions.values()].map((m) => m.nodeId).filter((id): id is string => id !== null))];
    // Rows in a fixed order, so two concurrent runs lock shared proposals in the same order (no deadlock).
    const bySignature = (a: { signature: string }, b: { signature: string }) => (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0);
    return {
      mentions: [...mentions.values()],
      nodeProposals: [...nodeProposals.values()].sort(bySignature),
      edgeProposals: [...edgeProposals.values()].sort(bySignature),
      coOccurrenceOnly,
      linkedNodeIds: linkedNodeIds.sort(),
    };
  }

  /**
   * A `related_to` that only says two names share a sentence is kept only when the pair goes together far more often
   * than chance: both names' words on at least MIN_SHARED_PAGES live pages, and pointwise mutual information
   * log2(n·nab / (na·nb)) of at least MIN_PMI (twice as often as if the two were independent), over search's word
   * index of every live page. That index is written with every save, so the decision depends on what the pages say,
   * not on which pages extraction reached first: the same pages give the same queue whatever order the jobs run in.
   */
  private async keepSignificant(edges: EdgeProposalRow[], coOccurrenceOnly: Map<string, [string, string]>, tx: EntityManager): Promise<EdgeProposalRow[]> {
    const pairs = [...new Map([...coOccurrenceOnly.values()].map((p) => [p.join('\u0000'), p])).values()];
    if (pairs.length === 0) return edges;
    const counted = await this.repository.namePairPages(pairs.map(([a, b]) => ({ a, b })), tx);
    const significant = new Set(
      pairs
        .filter((_, i) => {
          const c = counted[i];
          if (c.nab < MIN_SHARED_PAGES || c.na === 0 || c.nb === 0) return false;
          return Math.log2((c.n * c.nab) / (c.na * c.nb)) >= MIN_PMI;
        })
        .map((p) => p.join('\u0000')),
    );
    return edges.filter((edge) => {
      const pair = coOccurrenceOnly.get(edge.signature);
      return !pair || significant.has(pair.join('\u0000'));
    });
  }

  /**
   * For entities named by a variant of another (this run's or a pending proposal's), the proposal they join (`into`);
   * and the pending proposals, by signature, that other pages already made of this run's names (`pending`).
   */
  private async canonicalVariants(entities: { signature: string; entity: { name: string; type: string; confidence: number } }[], tx: EntityManager) {
    const into = new Map<string, { signature: string; name: string; type: string }>();
    const pendingBySignature = new Map<string, { name: string; confidence: number }>();
    const groups = new Map<string, typeof entities>();
    for (const e of entities) {
      const key = variantKey(e.entity.name);
      groups.set(key, [...(groups.get(key) ?? []), e]);
    }
    if (groups.size === 0) return { into, pending: pendingBySignature };
    // Most are locked already (lockProposedNames); a name that stopped resolving since (its entity deleted) is not.
    await lockNameVariants(entities.map((e) => e.entity.name), tx);
    const pending = await this.repository.pendingNodeProposalsNamed([...groups.keys()].flatMap(variantForms), tx);
    for (const [key, group] of groups) {
      const existing = pending.find((p) => variantKey(p.name) === key);
      if (existing) pendingBySignature.set(existing.signature, { name: existing.name, confidence: existing.confidence });
      const best = existing ?? [...group].sort((a, b) => b.entity.confidence - a.entity.confidence || a.signature.localeCompare(b.signature))[0];
      const target = existing
        ? { signature: existing.signature, name: existing.name, type: existing.type }
        : { signature: best.signature, name: (best as (typeof group)[number]).entity.name, type: (best as (typeof group)[number]).entity.type };
      for (const e of group) if (e.signature !== target.signature) into.set(e.signature, target);
    }
    return { into, pending: pendingBySignature };
  }

  /**
   * Locks the names this run may propose (those no approved entity has yet) before it deletes a chunk, which locks
   * the chunk's mentions: review locks a proposal's name before the proposal and its mentions, so the two take turns
   * (src/kg/variant-locks.ts). collect() then resolves the names again and sees what review decided meanwhile.
   */
  private async lockProposedNames(results: readonly ExtractionResult[], tx: EntityManager): Promise<void> {
    const raw = results.flatMap((result) => result.entities.map((e) => ({ signature: nodeSignature(e.name, e.type), normalised: normaliseName(e.name), entity: e })));
    const resolved = await this.resolveNodes(raw, tx);
    await lockNameVariants(raw.filter((e) => !resolved.has(e.signature) && !resolved.has(`name:${e.normalised}`)).map((e) => e.entity.name), tx);
  }

  /** Approved nodes for the entities: by signature first; then by name, a variant of it or an alias when exactly one node (or one of the same type) has it. */
  private async resolveNodes(entities: { signature: string; normalised: string; entity: { name: string; type: string } }[], tx: EntityManager) {
    const resolved = new Map<string, { id: string; signature: string }>();
    if (entities.length === 0) return resolved;
    const names = new Set(entities.flatMap((e) => [e.normalised, ...variantForms(variantKey(e.entity.name))]));
    const found = await this.repository.nodeCandidates([...new Set(entities.map((e) => e.signature))], [...names], tx);
    for (const node of found) if (node.wanted !== null) resolved.set(node.wanted, { id: node.id, signature: node.signature });
    const unresolved = entities.filter((e) => !resolved.has(e.signature));
    const candidates = found.filter((node) => node.wanted === null);
    for (const entity of unresolved) {
      const key = variantKey(entity.entity.name);
      const named = candidates.filter(
        (c) => variantKey(c.name) === key || variantKey(c.signature.slice(0, c.signature.lastIndexOf('|'))) === key || c.aliases.some((a) => variantKey(a) === key),
      );
      const unique = [...new Map(named.map((c) => [c.id, c])).values()];
      const sameType = unique.filter((c) => c.signature.endsWith(`|${entity.entity.type}`));
      const pick = unique.length === 1 ? unique[0] : sameType.length === 1 ? sameType[0] : null;
      if (pick) resolved.set(`name:${entity.normalised}`, { id: pick.id, signature: pick.signature });
    }
    return resolved;
  }
}

/** A proposal's score from its best support: the raw score, calibrated by the map in force, with that support's quote and signals. */
function scored(item: { confidence: number; evidence: string; signals?: string[] }, map: CalibrationMap) {
  const signals = item.signals ?? [];
  return { rawConfidence: item.confidence, confidence: calibrate(map, item.confidence), quote: item.evidence, signals, signalPattern: signalPattern(signals) };
}

function addSupport(support: { chunkId: string; pageId: string; quote: string; confidence: number }[], row: (typeof support)[number]): void {
  const existing = support.find((s) => s.chunkId === row.chunkId);
  if (!existing) support.push(row);
  else if (existing.confidence < row.confidence) Object.assign(existing, row);
}

/**
 * A mention's surface: how the chunk writes the entity — its name where the chunk has it, else the first of its other
 * spellings the chunk has (`templates` for the entity named `Note Templates` after its page's heading). The sentences
 * holding the surface are what other pages say about the entity (kg_mentions.context, migration 0020).
 */
export function writtenSurface(entity: { name: string; surfaces?: string[] }, text: string): string {
  const lower = text.toLowerCase();
  const written = (spelling: string) => spelling.trim() !== '' && wholeWordIndex(lower, spelling.toLowerCase()) >= 0;
  if (written(entity.name)) return entity.name;
  return (entity.surfaces ?? []).find(written) ?? entity.name;
}

/**
 * The titles of the pages a chunk links to, with the entity type their frontmatter `type:` names and the first heading
 * they open with (`# foam list` on the page titled `list`); the place in the
 * vault's hierarchy, relative to this page (`pagePath`), of every page the page links to (a page under it, or the page
 * it sits under; src/kg/page-hierarchy.ts); and apart, the targets of links to pages not written yet. An embed or link of an
 * attachment (`![[diagram.png]]`, `[[report.pdf]]`) is neither: attachments are never entities, whether their
 * extension says so or the link reached a stored file (`fileKeys`, such as `[[LICENSE]]`).
 */
export function linkTargetsOf(
  chunkText: string,
  pages: Map<string, LinkedPage>,
  fileKeys: ReadonlySet<string> = new Set(),
  pagePath: string | null = null,
): { linkTargets: string[]; linkTargetTypes: Record<string, EntityType>; linkTargetPlaces: Record<string, HierarchyPlace>; linkTargetHeadings: Record<string, string>; wantedTargets: string[] } {
  const targets = new Set<string>();
  const wanted = new Set<string>();
  const types: Record<string, EntityType> = {};
  const headings: Record<string, string> = {};
  if (!chunkText.includes('[')) return { linkTargets: [], linkTargetTypes: types, linkTargetPlaces: {}, linkTargetHeadings: headings, wantedTargets: [] };
  // Places over every page the page links to, not only this chunk's: whether the pages under it are mostly how-tos is
  // the page's, not the chunk's, to say. (A chunk without links relates nothing by the hierarchy, so it needs none.)
  const places = placesOf(pages, pagePath);
  for (const link of extractLinks(chunkText)) {
    const page = link.key ? pages.get(link.key) : undefined;
    if (!page) {
      if (link.key && !isAttachmentTarget(link.target) && !fileKeys.has(link.key)) wanted.add(link.target);
      continue;
    }
    targets.add(page.title);
    const type = pageEntityType(page);
    if (type) types[page.title] = type;
    const heading = headingOf(page);
    if (heading) headings[page.title] = heading;
  }
  return { linkTargets: [...targets], linkTargetTypes: types, linkTargetPlaces: places, linkTargetHeadings: headings, wantedTargets: [...wanted].filter((w) => !targets.has(w)) };
}

// Computed once per page's linked pages, not once per chunk: a page's chunks share its map of linked pages.
const placesByPages = new WeakMap<Map<string, LinkedPage>, { pagePath: string; places: Record<string, HierarchyPlace> }>();
const linkedHeadings = new WeakMap<LinkedPage, string | null>();

/** The place in the vault's hierarchy, relative to the page at `pagePath`, of each page it links to, by title. */
function placesOf(pages: Map<string, LinkedPage>, pagePath: string | null): Record<string, HierarchyPlace> {
  if (!pagePath) return {};
  const known = placesByPages.get(pages);
  if (known?.pagePath === pagePath) return known.places;
  const places: Record<string, HierarchyPlace> = {};
  for (const page of pages.values()) {
    const place = hierarchyPlace(pagePath, page.path);
    if (place) places[page.title] = place;
  }
  placesByPages.set(pages, { pagePath, places });
  return places;
}

/** The first heading a linked page opens with (`# foam list`), read from the start of its source once. */
function headingOf(page: LinkedPage): string | null {
  let heading = linkedHeadings.get(page);
  if (heading === undefined) linkedHeadings.set(page, (heading = page.head ? leadingHeading(page.head) : null));
  return heading;
}

/**
 * A page's kind as an entity type: its frontmatter `type:` (`type: plugin` → product). Not its cluster: a folder such
 * as `tools` holds tools and pages about using them alike (measured on the judged set: more wrong types than right).
 */
function pageEntityType(page: LinkedPage): EntityType | null {
  if (!page.type) return null;
  const mapped = normaliseEntityType(page.type);
  return mapped.known && mapped.type !== 'other' ? mapped.type : null;
}

function asEntityType(type: string): EntityType {
  return (ENTITY_TYPES as readonly string[]).includes(type) ? (type as EntityType) : 'other';
}

/** A stated relation's confidence never exceeds the built-in extractor's highest. */
const MAX_STATED_CONFIDENCE = 0.95;

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
