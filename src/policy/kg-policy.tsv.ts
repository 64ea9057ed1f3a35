import type {
  AuditEntryResponse, ClusterResponse, EstimateResponse, ExplainResponse, PendingClusterResponse, PolicyChangeResponse,
  PurgeCountResponse, PurgeResponse, VisibilityChangeResponse,
} from './dto/kg-policy.dto.js';
import type { TsvColumn, TsvShape } from './tsv.js';

// The TSV columns of each route that bin/kg-policy.sh prints as a table; JSON answers carry every field.

const CLUSTER_COLUMNS: TsvColumn<ClusterResponse>[] = [
  { header: 'cluster', value: (c) => c.cluster },
  { header: 'pages', value: (c) => c.pages },
  { header: 'excluded', value: (c) => c.excludedPages },
  { header: 'action', value: (c) => c.action ?? (c.inheritedFrom ? `(${c.effectiveAction} via ${c.inheritedFrom})` : '(default exclude)') },
  { header: 'reason', value: (c) => c.reason },
  { header: 'set_by', value: (c) => c.setBy },
  { header: 'set_at', value: (c) => c.setAt?.toISOString().slice(0, 10) },
  { header: 'reviewed_at', value: (c) => c.reviewedAt?.toISOString().slice(0, 10) },
  { header: 'stale', value: (c) => (c.action === null ? '' : c.stale ? 'STALE' : 'ok') },
];

export const CLUSTER_LIST_TSV: TsvShape<ClusterResponse> = {
  rows: (body: { items: ClusterResponse[] }) => body.items,
  columns: CLUSTER_COLUMNS,
};

export const CLUSTER_TSV: TsvShape<ClusterResponse> = { rows: (body: ClusterResponse) => [body], columns: CLUSTER_COLUMNS };

export const CLUSTER_CHANGE_TSV: TsvShape<PolicyChangeResponse> = {
  rows: (body: PolicyChangeResponse) => [body],
  columns: [
    ...(CLUSTER_COLUMNS as TsvColumn<PolicyChangeResponse>[]),
    { header: 'now_excluded', value: (c) => c.reconciled.nowExcluded },
    { header: 'now_included', value: (c) => c.reconciled.nowIncluded },
  ],
};

export const PENDING_TSV: TsvShape<PendingClusterResponse> = {
  rows: (body: { items: PendingClusterResponse[] }) => body.items,
  columns: [
    { header: 'cluster', value: (c) => c.cluster },
    { header: 'pages', value: (c) => c.pages },
  ],
};

export const AUDIT_TSV: TsvShape<AuditEntryResponse> = {
  rows: (body: { items: AuditEntryResponse[] }) => body.items,
  columns: [
    { header: 'at', value: (a) => a.at.toISOString().slice(0, 19).replace('T', ' ') },
    { header: 'actor', value: (a) => a.actor },
    { header: 'event', value: (a) => a.event },
    { header: 'cluster', value: (a) => a.cluster },
    { header: 'from', value: (a) => a.previousAction },
    { header: 'to', value: (a) => a.action },
    { header: 'reason', value: (a) => a.reason },
  ],
};

export const EXPLAIN_TSV: TsvShape<ExplainResponse> = {
  rows: (body: ExplainResponse) => [body],
  columns: [
    { header: 'slug', value: (e) => e.slug },
    { header: 'included', value: (e) => (e.included ? 'yes' : 'no') },
    { header: 'reason', value: (e) => e.reason },
    { header: 'explanation', value: (e) => e.explanation },
  ],
};

export const ESTIMATE_TSV: TsvShape<VisibilityChangeResponse> = {
  rows: (body: EstimateResponse) => body.changes,
  columns: [
    { header: 'rows', value: (c) => c.kind },
    { header: 'hide', value: (c) => c.hide },
    { header: 'reveal', value: (c) => c.reveal },
  ],
};

export const PURGE_TSV: TsvShape<PurgeCountResponse> = {
  rows: (body: PurgeResponse) => body.deleted,
  columns: [
    { header: 'table', value: (d) => d.table },
    { header: 'rows', value: (d) => d.rows },
  ],
};
