/**
 * What a backup holds, declared once: every table of Kurate's schema is either backed up (the facts people made:
 * pages, accounts, the graph and its history) or rebuilt after a restore (derived from those), or left out (state
 * that only matters to the running instance). test/unit/backup-tables.test.ts checks the three lists against the
 * migrations, so a new table cannot be forgotten: adding one to the backup is one line here.
 */
export interface BackupTable {
  name: string;
  /** The row order in the archive (the primary key): a backup of the same data is the same file, bar its header. */
  orderBy: string;
  /** Derived columns, left out of the archive and recomputed after a restore. */
  derivedColumns?: string[];
  /** Rows in this table make an instance non-empty (restore then needs --force); settings alone do not. */
  content: boolean;
  /** Append-only by trigger (audit trails): a forced restore lifts the trigger for its own TRUNCATE only. */
  appendOnly?: boolean;
}

/** In the order a restore inserts them: every table after the tables its foreign keys point at. */
export const BACKUP_TABLES: readonly BackupTable[] = [
  // Settings: the generated session secret, and the setup code while no admin exists.
  { name: 'server_secrets', orderBy: 'name', content: false },
  { name: 'users', orderBy: 'id', content: true },
  { name: 'api_tokens', orderBy: 'id', content: true },
  { name: 'audit_log', orderBy: 'id', content: true, appendOnly: true },
  // `search` is the search vector; link_keys are recomputed too (src/pages/pages.service.ts rebuildIndex).
  { name: 'pages', orderBy: 'id', derivedColumns: ['search'], content: true },
  { name: 'page_revisions', orderBy: 'id', content: true },
  { name: 'page_redirects', orderBy: 'old_slug', content: true },
  // Attachments (migration 0015): the catalogue, the bytes of the database store (a local folder or an S3 bucket is
  // backed up beside the archive: docs/attachments.md), and which page references which file since which version.
  { name: 'attachments', orderBy: 'id', content: true },
  { name: 'attachment_blobs', orderBy: 'sha256', content: true },
  { name: 'page_file_refs', orderBy: 'page_id, target', content: true },
  { name: 'kg_cluster_policy', orderBy: 'cluster', content: true },
  { name: 'kg_policy_audit', orderBy: 'id', content: true, appendOnly: true },
  // Chunks are the anchors of the graph's evidence (proposals, mentions and their quotes point at them), and keeping
  // them means a restore pays for no extraction call; their vectors and search vectors are derived.
  { name: 'kg_content_chunks', orderBy: 'id', derivedColumns: ['embedding', 'embedding_model', 'embedding_dims', 'search'], content: true },
  { name: 'kg_nodes', orderBy: 'id', content: true },
  { name: 'kg_edges', orderBy: 'id', content: true },
  { name: 'kg_proposals', orderBy: 'id', content: true },
  { name: 'kg_proposal_support', orderBy: 'proposal_id, chunk_id', content: true },
  { name: 'kg_node_provenance', orderBy: 'node_id, proposal_id', content: true },
  { name: 'kg_edge_provenance', orderBy: 'edge_id, proposal_id', content: true },
  // context: the words of the mention's sentences (migration 0020); page_id: its chunk's page (0029). Both kept by triggers.
  { name: 'kg_mentions', orderBy: 'id', derivedColumns: ['context', 'page_id'], content: true },
  { name: 'kg_rejections', orderBy: 'kind, signature', content: true },
  { name: 'kg_review_actions', orderBy: 'id', content: true },
  { name: 'kg_review_journal', orderBy: 'id', content: true },
  { name: 'kg_node_signatures', orderBy: 'signature', content: true },
];

/** Rebuilt after a restore from the tables above, never read from an archive (src/backup/restore.service.ts). */
export const DERIVED_TABLES: readonly { name: string; rebuiltBy: string }[] = [
  { name: 'page_links', rebuiltBy: 'the pages’ Markdown, parsed again' },
  { name: 'page_search_terms', rebuiltBy: 'a trigger on pages.search (migrations 0007, 0038)' },
  { name: 'page_search_stats', rebuiltBy: 'a trigger on pages.search (migrations 0006, 0038)' },
  { name: 'page_search_totals', rebuiltBy: 'triggers on page_search_stats (migration 0037)' },
  { name: 'kg_excluded_pages', rebuiltBy: 'the inclusion policy’s reconciliation' },
  { name: 'kg_page_terms', rebuiltBy: 'the pages’ word counts' },
  { name: 'kg_node_embeddings', rebuiltBy: 'the re-embedding job' },
  { name: 'kg_page_extractions', rebuiltBy: 'an extraction job per included page (kept chunks cost no call)' },
  { name: 'kg_calibration_fits', rebuiltBy: 'a refit on the restored review history (the next extraction job, or Refit now)' },
];

/** Neither backed up nor rebuilt: they only matter to the instance that wrote them. */
export const INSTANCE_TABLES: readonly { name: string; why: string }[] = [
  { name: 'user_sessions', why: 'a restore logs everyone out; API tokens keep working' },
  { name: 'login_attempts', why: 'throttling state' },
  { name: 'kg_extraction_failures', why: 'failed jobs of the old instance, whose jobs are not in the backup; a failing page fails again' },
  { name: 'schema_migrations', why: 'recorded in the archive’s header and checked, never loaded' },
  { name: 'restore_rebuild_owed', why: 'a mark the restore’s load commits and its rebuild removes: the next start or restore finishes a rebuild left owed (migration 0033)' },
];
