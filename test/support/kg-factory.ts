import type { DataSource } from 'typeorm';
import { edgeSignature, nodeSignature } from '../../src/admin/review-signature.js';
import { PolicyReconciler } from '../../src/policy/policy-reconciler.service.js';
import { nameStem, signalPattern } from '../../src/kg/proposal-signals.js';
import type { TestApp } from './test-app.js';

export interface Support {
  chunkId: string;
  pageId: string;
  quote: string;
  confidence?: number;
}

export interface NodeRef {
  name: string;
  type: string;
}

/**
 * Rows of the knowledge graph for tests, inserted directly (the extraction pipeline need not run): pages (through
 * the API, included in the KG by `kg_include: true`), chunks, pending proposals with their support and mentions,
 * approved nodes and edges. Signatures are computed the way review computes them.
 */
export class KgFactory {
  private readonly db: DataSource;
  private counter = 0;

  constructor(private readonly t: TestApp) {
    this.db = t.dataSource;
  }

  /** A factory once the start-up reconciliation is done (it would otherwise race the pages a test creates). */
  static async for(t: TestApp): Promise<KgFactory> {
    await t.app.get(PolicyReconciler).whenStartupRebuildDone();
    return new KgFactory(t);
  }

  /**
   * Every row of the tables review writes, ordered by key, as text: two snapshots are equal exactly when the same
   * rows hold the same values.
   */
  async snapshot(): Promise<string> {
    const tables: [string, string][] = [
      ['kg_proposals', 'id'], ['kg_rejections', 'kind, signature'], ['kg_nodes', 'id'], ['kg_node_signatures', 'signature'],
      ['kg_node_embeddings', 'node_id, model'], ['kg_node_provenance', 'node_id, proposal_id'], ['kg_edges', 'id'],
      ['kg_edge_provenance', 'edge_id, proposal_id'], ['kg_mentions', 'id'],
    ];
    const parts: string[] = [];
    for (const [table, order] of tables) {
      const rows: { r: unknown }[] = await this.db.query(`SELECT to_jsonb(t) AS r FROM ${table} t ORDER BY ${order}`);
      parts.push(`${table}: ${JSON.stringify(rows.map((x) => x.r))}`);
    }
    return parts.join('\n');
  }

  /** A page (created through the API by an admin). Included in the KG unless `include: false`. */
  async page(title: string, options: { body?: string; cluster?: string; include?: boolean } = {}): Promise<{ id: string; slug: string }> {
    const api = await this.t.as('admin', { name: 'Factory' });
    const frontmatter = [`kg_include: ${options.include === false ? 'false' : 'true'}`, ...(options.cluster ? [`cluster: ${options.cluster}`] : [])];
    const res = await api.post('/api/pages').send({ title, body: `---\n${frontmatter.join('\n')}\n---\n${options.body ?? `About ${title}.`}\n` });
    if (res.status !== 201) throw new Error(`page ${title}: ${res.status} ${JSON.stringify(res.body)}`);
    const rows: { id: string; slug: string }[] = await this.db.query('SELECT id, slug FROM pages WHERE slug = $1', [res.body.slug]);
    return rows[0];
  }

  async chunk(pageId: string, text: string, headingPath: string[] = []): Promise<string> {
    const rows: { id: string }[] = await this.db.query(
      `INSERT INTO kg_content_chunks (page_id, position, heading_path, text, content_hash)
       VALUES ($1, (SELECT coalesce(max(position), -1) + 1 FROM kg_content_chunks WHERE page_id = $1), $2, $3, md5($3)) RETURNING id::text AS id`,
      [pageId, headingPath, text],
    );
    return rows[0].id;
  }

  /** A page with one chunk that says `text`: the usual evidence for a proposal. */
  async passage(title: string, text: string, options: { headingPath?: string[]; cluster?: string } = {}): Promise<Support & { slug: string }> {
    const page = await this.page(title, { body: text, cluster: options.cluster });
    const chunkId = await this.chunk(page.id, text, options.headingPath ?? []);
    return { chunkId, pageId: page.id, quote: text, slug: page.slug };
  }

  /** A pending node proposal, its support, and (like extraction) an unlinked mention per supporting chunk. */
  async nodeProposal(input: {
    name: string; type?: string; confidence?: number; support?: (Support | { chunkId: string; pageId: string; quote?: string })[];
    extractor?: string; model?: string | null; description?: string; createdAt?: string; mentions?: boolean;
    /** The extractor's raw score (default: the confidence) and signals (migration 0021). */
    rawConfidence?: number; signals?: string[];
  }): Promise<string> {
    const type = input.type ?? 'concept';
    const signature = nodeSignature(input.name, type);
    const support = input.support ?? [];
    const signals = input.signals ?? [];
    const rows: { id: string }[] = await this.db.query(
      `INSERT INTO kg_proposals (kind, signature, name, node_type, description, confidence, evidence_quote, support_count, extractor, model, created_at,
                                 raw_confidence, signals, signal_pattern, name_stem)
       VALUES ('node', $1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce($10::timestamptz, now()), $11, $12, $13, $14) RETURNING id::text AS id`,
      [signature, input.name, type, input.description ?? '', input.confidence ?? 0.8, support[0]?.quote ?? null, support.length,
        input.extractor ?? 'builtin', input.model ?? null, input.createdAt ?? null, input.rawConfidence ?? input.confidence ?? 0.8, signals,
        signalPattern(signals), nameStem(input.name)],
    );
    await this.support(rows[0].id, support);
    if (input.mentions !== false) {
      for (const s of support) await this.mention(s.chunkId, signature, input.name, null);
    }
    return rows[0].id;
  }

  /** A pending edge proposal between two node signatures (the nodes need not exist). */
  async edgeProposal(input: {
    source: NodeRef; predicate: string; target: NodeRef; confidence?: number; support?: Support[]; extractor?: string; model?: string | null;
    rawConfidence?: number; signals?: string[];
  }): Promise<string> {
    const source = nodeSignature(input.source.name, input.source.type);
    const target = nodeSignature(input.target.name, input.target.type);
    const support = input.support ?? [];
    const signals = input.signals ?? [];
    const rows: { id: string }[] = await this.db.query(
      `INSERT INTO kg_proposals (kind, signature, source_signature, source_name, predicate, target_signature, target_name, confidence,
                                 evidence_quote, support_count, extractor, model, raw_confidence, signals, signal_pattern)
       VALUES ('edge', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id::text AS id`,
      [edgeSignature(source, input.predicate, target), source, input.source.name, input.predicate, target, input.target.name,
        input.confidence ?? 0.8, support[0]?.quote ?? null, support.length, input.extractor ?? 'builtin', input.model ?? null,
        input.rawConfidence ?? input.confidence ?? 0.8, signals, signalPattern(signals)],
    );
    await this.support(rows[0].id, support);
    return rows[0].id;
  }

  async mention(chunkId: string, signature: string, surface: string, nodeId: string | null): Promise<string> {
    const rows: { id: string }[] = await this.db.query(
      `INSERT INTO kg_mentions (chunk_id, signature, node_id, surface) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chunk_id, signature) DO UPDATE SET node_id = EXCLUDED.node_id RETURNING id::text AS id`,
      [chunkId, signature, nodeId, surface],
    );
    return rows[0].id;
  }

  /** An approved node, as if made by hand (origin manual) unless told otherwise. */
  async node(input: { name: string; type?: string; aliases?: string[]; description?: string; origin?: string }): Promise<string> {
    const type = input.type ?? 'concept';
    const rows: { id: string }[] = await this.db.query(
      `INSERT INTO kg_nodes (signature, name, node_type, aliases, description, origin, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, 'factory') RETURNING id::text AS id`,
      [nodeSignature(input.name, type), input.name, type, input.aliases ?? [], input.description ?? '', input.origin ?? 'manual'],
    );
    return rows[0].id;
  }

  async edge(sourceId: string, targetId: string, predicate: string, options: { kind?: 'typed' | 'co_mention'; weight?: number; origin?: string } = {}): Promise<string> {
    const kind = options.kind ?? 'typed';
    const rows: { id: string }[] = await this.db.query(
      `INSERT INTO kg_edges (source_node_id, target_node_id, kind, predicate, weight, origin, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, 'factory') RETURNING id::text AS id`,
      [sourceId, targetId, kind, kind === 'co_mention' ? 'co_mention' : predicate, options.weight ?? 1, options.origin ?? 'manual'],
    );
    return rows[0].id;
  }

  /** A unique-enough name for a test row. */
  name(prefix: string): string {
    this.counter += 1;
    return `${prefix} ${this.counter}`;
  }

  async count(table: string, where = 'true', params: unknown[] = []): Promise<number> {
    const rows: { n: number }[] = await this.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params);
    return rows[0].n;
  }

  private async support(proposalId: string, support: { chunkId: string; pageId: string; quote?: string; confidence?: number }[]): Promise<void> {
    for (const s of support) {
      await this.db.query(
        'INSERT INTO kg_proposal_support (proposal_id, chunk_id, page_id, quote, confidence) VALUES ($1, $2, $3, $4, $5)',
        [proposalId, s.chunkId, s.pageId, s.quote ?? '', s.confidence ?? null],
      );
    }
  }
}
