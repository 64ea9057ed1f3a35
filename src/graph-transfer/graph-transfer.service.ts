import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { uniqueAliases } from '../curation/curation.service.js';
import { GraphTransferRepository, type ExportEdgeRow, type ExportNodeRow, type ImportNodeRow, type ImportProposalRow } from './graph-transfer.repository.js';
import { ReviewErrors } from '../admin/review-errors.js';
import { ImportEdgeDto, ImportNodeDto } from './dto/graph-transfer.dto.js';
import { nextTurn } from '../common/next-turn.js';
import { checkedGraphItems } from './graph-items.js';
import { CurationWritesRepository } from '../admin/curation-writes.repository.js';
import { ReviewJournalRepository } from '../admin/review-journal.repository.js';
import { ReviewWritesRepository } from '../admin/review-writes.repository.js';
import { lockNameVariants } from '../kg/variant-locks.js';
import { edgeSignature, nodeSignature } from '../admin/review-signature.js';
import { isEntityType, isPredicate, REVIEW_PREDICATES, REVIEW_TYPES, vocabularyKey } from '../admin/review-vocabulary.js';
import { FILE_SOURCE, type SourceWithoutPages } from '../kg/proposal-sources.js';

export const EXPORT_FORMAT = 'kurate.knowledge-graph';
export const EXPORT_VERSION = 1;

export interface GraphExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  nodes: {
    id: string; signature: string; name: string; type: string; aliases: string[]; description: string; origin: string;
    createdBy: string; createdAt: string; updatedAt: string;
    provenance: { proposals: ExportNodeRow['proposals']; pages: string[]; mentions: number };
  }[];
  edges: {
    id: string; source: string; target: string; kind: string; predicate: string; weight: number; origin: string;
    createdBy: string; createdAt: string; updatedAt: string;
    provenance: { proposals: ExportEdgeRow['proposals']; pages: string[] };
  }[];
}

export interface ImportNodeInput {
  id: string;
  name: string;
  type: string;
  aliases?: string[];
  description?: string;
  confidence?: number;
}

export interface ImportEdgeInput {
  source: string;
  target: string;
  predicate: string;
  kind?: string;
  weight?: number;
  confidence?: number;
}

/** Nodes or edges matched per turn of the event loop (other requests' callbacks run in between). */
const ITEMS_PER_TURN = 1_000;

export interface ImportRequest {
  graph: { nodes: ImportNodeInput[]; edges?: ImportEdgeInput[] };
  /** pending: proposals for the review queue; approved: entities and edges at once (needs a reason). */
  mode: 'pending' | 'approved';
  reason?: string;
  /** Unknown types and predicates mapped onto the vocabulary, e.g. {"framework": "technology"}. */
  typeMap?: Record<string, string>;
  predicateMap?: Record<string, string>;
  /** Validate and report only; nothing is written. */
  dryRun?: boolean;
  /** Who proposes (kg_proposals.extractor): a file import, or an agent over /admin-mcp (its proposals are marked so in the queue). */
  source?: SourceWithoutPages;
}

export interface ImportReport {
  mode: 'pending' | 'approved';
  dryRun: boolean;
  actionId: string | null;
  summary: string;
  nodes: { received: number; accepted: number; existing: number; refused: { id: string; name: string; reason: string }[] };
  edges: { received: number; accepted: number; existing: number; refused: { index: number; source: string; target: string; reason: string }[] };
  mapped: { types: Record<string, string>; predicates: Record<string, string> };
}

/** Export of the approved, visible graph (JSON with provenance, GraphML) and import of a JSON graph, validated first. */
@Injectable()
export class GraphTransferService {
  constructor(
    private readonly transfer: GraphTransferRepository,
    private readonly journal: ReviewJournalRepository,
    private readonly curation: CurationWritesRepository,
    private readonly writes: ReviewWritesRepository,
    private readonly audit: AuditService,
  ) {}

  /** The graph as JSON; the same rows always give the same bytes (ordered by id, no export timestamp). */
  async exportJson(): Promise<string> {
    const { nodes, edges } = await this.exportGraph();
    return `${JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, nodes, edges } satisfies GraphExport)}\n`;
  }

  async exportGraphMl(): Promise<string> {
    const { nodes, edges } = await this.exportGraph();
    const data = (key: string, value: string | number) => `<data key="${key}">${xml(String(value))}</data>`;
    const lines = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
      '  <key id="name" for="node" attr.name="name" attr.type="string"/>',
      '  <key id="type" for="node" attr.name="type" attr.type="string"/>',
      '  <key id="signature" for="node" attr.name="signature" attr.type="string"/>',
      '  <key id="aliases" for="node" attr.name="aliases" attr.type="string"/>',
      '  <key id="description" for="node" attr.name="description" attr.type="string"/>',
      '  <key id="mentions" for="node" attr.name="mentions" attr.type="int"/>',
      '  <key id="kind" for="edge" attr.name="kind" attr.type="string"/>',
      '  <key id="predicate" for="edge" attr.name="predicate" attr.type="string"/>',
      '  <key id="weight" for="edge" attr.name="weight" attr.type="double"/>',
      '  <key id="origin" for="all" attr.name="origin" attr.type="string"/>',
      '  <key id="pages" for="all" attr.name="pages" attr.type="string"/>',
      '  <key id="approvedBy" for="all" attr.name="approvedBy" attr.type="string"/>',
      '  <graph id="kurate" edgedefault="directed">',
    ];
    for (const n of nodes) {
      const approvers = [...new Set(n.provenance.proposals.map((p) => p.approvedBy))].join(' ');
      lines.push(
        `    <node id="n${n.id}">${data('name', n.name)}${data('type', n.type)}${data('signature', n.signature)}${data('aliases', JSON.stringify(n.aliases))}` +
          `${data('description', n.description)}${data('mentions', n.provenance.mentions)}${data('origin', n.origin)}${data('pages', n.provenance.pages.join(' '))}${data('approvedBy', approvers)}</node>`,
      );
    }
    for (const e of edges) {
      const approvers = [...new Set(e.provenance.proposals.map((p) => p.approvedBy))].join(' ');
      lines.push(
        `    <edge id="e${e.id}" source="n${e.source}" target="n${e.target}">${data('kind', e.kind)}${data('predicate', e.predicate)}${data('weight', e.weight)}` +
          `${data('origin', e.origin)}${data('pages', e.provenance.pages.join(' '))}${data('approvedBy', approvers)}</edge>`,
      );
    }
    lines.push('  </graph>', '</graphml>', '');
    return lines.join('\n');
  }

  private async exportGraph(): Promise<Pick<GraphExport, 'nodes' | 'edges'>> {
    const [nodes, edges] = [await this.transfer.exportNodes(), await this.transfer.exportEdges()];
    return {
      nodes: nodes.map((n) => ({
        id: n.id, signature: n.signature, name: n.name, type: n.type, aliases: n.aliases, description: n.description, origin: n.origin,
        createdBy: n.createdBy, createdAt: n.createdAt, updatedAt: n.updatedAt,
        provenance: { proposals: n.proposals, pages: n.pages, mentions: n.mentions },
      })),
      edges: edges.map((e) => ({
        id: e.id, source: e.source, target: e.target, kind: e.kind, predicate: e.predicate, weight: e.weight, origin: e.origin,
        createdBy: e.createdBy, createdAt: e.createdAt, updatedAt: e.updatedAt,
        provenance: { proposals: e.proposals, pages: e.pages },
      })),
    };
  }

  /**
   * Validates a JSON graph, then (unless a dry run) writes what passed: pending proposals, or, with a reason,
   * approved entities and edges (origin import). Unknown types and predicates are mapped (typeMap, predicateMap)
   * or refused; edges whose endpoints are not accepted nodes of the file are refused. One undoable action.
   */
  async import(request: ImportRequest, origin: RequestOrigin): Promise<ImportReport> {
    // Every node and edge validated first, a batch at a time (a large file must not hold the web thread).
    const graph = {
      nodes: await checkedGraphItems(ImportNodeDto, request.graph.nodes, 'nodes'),
      edges: request.graph.edges ? await checkedGraphItems(ImportEdgeDto, request.graph.edges, 'edges') : undefined,
    };
    const reason = request.reason?.trim() || null;
    if (request.mode === 'approved' && !reason) throw ReviewErrors.invalid('An import as approved needs a reason (it goes to the audit trail); or import as pending proposals.');
    const typeMap = checkedMap(request.typeMap, isEntityType, 'typeMap', REVIEW_TYPES);
    const predicateMap = checkedMap(request.predicateMap, isPredicate, 'predicateMap', REVIEW_PREDICATES);
    const mapped = { types: {} as Record<string, string>, predicates: {} as Record<string, string> };
    const report: ImportReport = {
      mode: request.mode, dryRun: request.dryRun === true, actionId: null, summary: '',
      nodes: { received: graph.nodes.length, accepted: 0, existing: 0, refused: [] },
      edges: { received: graph.edges?.length ?? 0, accepted: 0, existing: 0, refused: [] },
      mapped,
    };

    // Nodes: a type of the vocabulary (or mapped onto it), one per id and per signature.
    const nodes = new Map<string, ImportNodeRow & { confidence: number }>();
    const bySignature = new Map<string, string>();
    const refusedIds = new Set<string>();
    for (const [i, n] of graph.nodes.entries()) {
      if (i > 0 && i % ITEMS_PER_TURN === 0) await nextTurn();
      const name = n.name.normalize('NFC').replace(/\s+/gu, ' ').trim();
      const type = resolveTerm(n.type, isEntityType, typeMap, mapped.types);
      const refuse = (why: string) => {
        refusedIds.add(n.id);
        report.nodes.refused.push({ id: n.id, name, reason: why });
      };
      if (nodes.has(n.id) || refusedIds.has(n.id)) refuse('another node of this file has the same id');
      else if (name === '') refuse('no name');
      else if (!type) refuse(`unknown type “${n.type}”: map it with typeMap (to one of ${REVIEW_TYPES.join(', ')})`);
      else {
        const signature = nodeSignature(name, type);
        const twin = bySignature.get(signature);
        if (twin) refuse(`same name and type as node “${twin}” of this file`);
        else {
          bySignature.set(signature, n.id);
          nodes.set(n.id, { key: n.id, signature, name, type, aliases: uniqueAliases(n.aliases ?? [], name), description: (n.description ?? '').trim(), confidence: n.confidence ?? 1 });
        }
      }
    }

    return this.journal.transaction(async (tx) => {
      // An import as approved may create entities: their names are locked first, as an approval's are, so that an
      // extraction run meeting one of them takes turns with the import (and links its mentions to the new entity).
      if (request.mode === 'approved' && !report.dryRun) await lockNameVariants([...nodes.values()].flatMap((n) => [n.name, ...n.aliases]), tx);
      const nodeStates = await this.transfer.signatureStates('node', [...nodes.values()].map((n) => n.signature), tx);
      const newNodes: (ImportNodeRow & { confidence: number })[] = [];
      for (const node of [...nodes.values()]) {
        const state = nodeStates.get(node.signature);
        if (state === 'rejected' && request.mode === 'pending') {
          report.nodes.refused.push({ id: node.key, name: node.name, reason: 'rejected earlier: it will not be proposed again' });
          nodes.delete(node.key);
        } else if (state === 'node' || (state === 'pending' && request.mode === 'pending')) {
          report.nodes.existing++;
        } else {
          newNodes.push(node);
        }
      }
      report.nodes.accepted = newNodes.length;
      // The entity each known node of the file is already: two of the file's nodes may be one (one was merged into the
      // other, whose signature now leads to it), and an edge between them would join that entity to itself.
      const entityOf = await this.transfer.nodeIdsOf([...nodes.values()].map((n) => n.signature), tx);
      const oneEntity = (source: ImportNodeRow, target: ImportNodeRow, id: string) =>
        `it joins a node to itself: “${source.name}” and “${target.name}” are one entity here (entity ${id})`;

      // Edges: typed, a predicate of the list (or mapped), both endpoints accepted (or existing) nodes of the file.
      const edges: { index: number; source: ImportNodeRow; target: ImportNodeRow; predicate: string; weight: number; confidence: number }[] = [];
      const seen = new Set<string>();
      const consider = (e: ImportEdgeInput, index: number) => {
        const refuse = (why: string) => report.edges.refused.push({ index, source: e.source, target: e.target, reason: why });
        if (e.kind !== undefined && e.kind !== 'typed') return refuse(`a ${e.kind} edge is derived from the pages, not imported`);
        const predicate = resolveTerm(e.predicate, isPredicate, predicateMap, mapped.predicates);
        if (!predicate) return refuse(`unknown predicate “${e.predicate}”: map it with predicateMap (to one of ${REVIEW_PREDICATES.join(', ')})`);
        const source = nodes.get(e.source);
        const target = nodes.get(e.target);
        if (!source) return refuse(`dangling: its source “${e.source}” is not an accepted node of this file`);
        if (!target) return refuse(`dangling: its target “${e.target}” is not an accepted node of this file`);
        if (source.signature === target.signature) return refuse('it joins a node to itself');
        const entity = entityOf.get(source.signature);
        if (entity !== undefined && entity === entityOf.get(target.signature)) return refuse(oneEntity(source, target, entity));
        const key = edgeSignature(source.signature, predicate, target.signature);
        if (seen.has(key)) return refuse('the same edge appears earlier in this file');
        seen.add(key);
        edges.push({ index, source, target, predicate, weight: e.weight ?? 1, confidence: e.confidence ?? 1 });
      };
      for (const [index, e] of (graph.edges ?? []).entries()) {
        if (index > 0 && index % ITEMS_PER_TURN === 0) await nextTurn();
        consider(e, index);
      }

      if (request.mode === 'pending') {
        const edgeStates = await this.transfer.signatureStates('edge', edges.map((e) => edgeSignature(e.source.signature, e.predicate, e.target.signature)), tx);
        const proposals: ImportProposalRow[] = newNodes.map((n) => ({
          kind: 'node', signature: n.signature, name: n.name, type: n.type, sourceSignature: null, sourceName: null, predicate: null,
          targetSignature: null, targetName: null, description: n.description, confidence: clamp(n.confidence),
        }));
        for (const e of edges) {
          const signature = edgeSignature(e.source.signature, e.predicate, e.target.signature);
          const state = edgeStates.get(signature);
          if (state === 'rejected') {
            report.edges.refused.push({ index: -1, source: e.source.key, target: e.target.key, reason: 'rejected earlier: it will not be proposed again' });
            continue;
          }
          if (state === 'pending') {
            report.edges.existing++;
            continue;
          }
          report.edges.accepted++;
          proposals.push({
            kind: 'edge', signature, name: null, type: null, sourceSignature: e.source.signature, sourceName: e.source.name, predicate: e.predicate,
            targetSignature: e.target.signature, targetName: e.target.name, description: '', confidence: clamp(e.confidence),
          });
        }
        report.summary = `Import as pending proposals: ${report.nodes.accepted} node${report.nodes.accepted === 1 ? '' : 's'} and ${report.edges.accepted} edge${report.edges.accepted === 1 ? '' : 's'} accepted, ${report.nodes.existing + report.edges.existing} already known, ${report.nodes.refused.length + report.edges.refused.length} refused.`;
        if (report.dryRun || proposals.length === 0) return report;
        const j = await this.journal.open(tx, 'import', origin.actor, null, 'importing');
        await this.transfer.insertProposals(j, proposals, request.source ?? FILE_SOURCE);
        return this.finish(j, report, reason, origin, request.source ?? FILE_SOURCE);
      }

      report.edges.accepted = edges.length;
      report.summary = `Import as approved: ${report.nodes.accepted} new entit${report.nodes.accepted === 1 ? 'y' : 'ies'} (${report.nodes.existing} already there) and up to ${report.edges.accepted} edge${report.edges.accepted === 1 ? '' : 's'}, ${report.nodes.refused.length + report.edges.refused.length} refused (“${reason}”).`;
      if (report.dryRun || (newNodes.length === 0 && edges.length === 0)) return report;
      const j = await this.journal.open(tx, 'import', origin.actor, null, 'importing');
      const ids = await this.transfer.insertNodes(j, newNodes.map(({ confidence: _c, ...n }) => n), [...nodes.values()].map((n) => n.signature), origin.actor.name);
      // The pages' mentions of the new entities are linked to them, as an approval links them (journaled: the undo
      // unlinks them), and their co-mention edges follow.
      const newIds = [...new Set(newNodes.flatMap((n) => ids.get(n.signature) ?? []))];
      if ((await this.curation.linkMentionsNamed(j, newIds)) > 0) await this.writes.deriveCoMentions(j, origin.actor.name, 'SELECT unnest($1::bigint[])', [newIds]);
      // The ends again, by the nodes they lead to now (the edges are written between these): a merge that committed
      // since they were read may have made two of them one.
      const written = edges.filter((e) => {
        if (ids.get(e.source.signature) !== ids.get(e.target.signature)) return true;
        report.edges.refused.push({ index: e.index, source: e.source.key, target: e.target.key, reason: oneEntity(e.source, e.target, ids.get(e.source.signature)!) });
        return false;
      });
      const created = await this.transfer.insertEdges(
        j,
        written.map((e) => ({ source: ids.get(e.source.signature)!, target: ids.get(e.target.signature)!, predicate: e.predicate, weight: e.weight })),
        origin.actor.name,
      );
      report.edges.existing = written.length - created;
      report.edges.accepted = created;
      report.summary = `Import as approved: ${report.nodes.accepted} new entit${report.nodes.accepted === 1 ? 'y' : 'ies'} and ${created} new edge${created === 1 ? '' : 's'} (${report.nodes.existing + report.edges.existing} already there), ${report.nodes.refused.length + report.edges.refused.length} refused (“${reason}”).`;
      return this.finish(j, report, reason, origin);
    });
  }

  private async finish(j: Awaited<ReturnType<ReviewJournalRepository['open']>>, report: ImportReport, reason: string | null, origin: RequestOrigin, source: 'import' | 'agent' = 'import'): Promise<ImportReport> {
    const counts = { mode: report.mode, ...(source === 'agent' ? { source } : {}), reason, nodes: report.nodes.accepted, edges: report.edges.accepted, refused: report.nodes.refused.length + report.edges.refused.length };
    await this.journal.close(j, report.summary, counts, `import:${j.actionId}`);
    await this.audit.record(origin.actor, 'kg.import', `import:${j.actionId}`, { journal: j.actionId, summary: report.summary, ...counts }, origin.ip, j.tx);
    return { ...report, actionId: j.actionId };
  }
}

/** A term of the vocabulary: as given (case, spaces and dashes forgiven), or mapped by the request. */
function resolveTerm(value: string, known: (v: string) => boolean, map: Map<string, string>, used: Record<string, string>): string | null {
  const key = vocabularyKey(value);
  if (known(key)) {
    if (key !== value) used[value] = key;
    return key;
  }
  const target = map.get(value) ?? map.get(key);
  if (!target) return null;
  used[value] = target;
  return target;
}

function checkedMap(map: Record<string, string> | undefined, known: (v: string) => boolean, name: string, vocabulary: readonly string[]): Map<string, string> {
  const result = new Map<string, string>();
  for (const [from, to] of Object.entries(map ?? {})) {
    if (typeof to !== 'string' || !known(vocabularyKey(to))) {
      throw ReviewErrors.invalid(`${name} maps “${from}” to “${String(to)}”, which is not one of: ${vocabulary.join(', ')}.`);
    }
    result.set(from, vocabularyKey(to)).set(vocabularyKey(from), vocabularyKey(to));
  }
  return result;
}

function clamp(confidence: number): number {
  return Math.min(1, Math.max(0, confidence));
}

function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
