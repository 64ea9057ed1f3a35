import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CurationService } from '../curation/curation.service.js';
import { GraphTransferService } from '../graph-transfer/graph-transfer.service.js';
import type { ProposalView } from '../review/review-queue.service.js';
import { ReviewQueueService } from '../review/review-queue.service.js';
import { BULK_MAX_LIMIT, ReviewService, type ReviewOutcome } from '../review/review.service.js';
import { UndoService } from '../curation/undo.service.js';
import { AuditService } from '../audit/audit.service.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { PageGraphService } from '../pages/page-graph.service.js';
import { PagesService } from '../pages/pages.service.js';
import { PolicyImpactService } from '../policy/policy-impact.service.js';
import { PolicyService } from '../policy/policy.service.js';
// kg_proposals.extractor of what an agent proposed: the queue shows it, and no agent may approve it.
import { AGENT_SOURCE } from '../kg/proposal-sources.js';
import { AgentReadsRepository } from './agent-reads.repository.js';
import { nextCursor, pageOf, pagingInput, pagingOutput, readCursor } from './mcp-cursor.js';
import { entityIdInput, fullOf, nodeSchema, pageFull, slugInput, WikiUrls } from './mcp-schemas.js';
import { defineTool, invalidArgument, type ToolCallListener } from './mcp-tool.js';

export const ADMIN_SERVER_NAME = 'kurate-admin';
const MAX_REVIEW_IDS = 100;

const proposalSummary = z.object({
  id: z.string(),
  kind: z.enum(['node', 'edge']),
  status: z.string(),
  name: z.string().nullable().describe('Nodes: the entity name.'),
  type: z.string().nullable().describe('Nodes: the entity type.'),
  sourceName: z.string().nullable().describe('Edges: the source entity.'),
  predicate: z.string().nullable().describe('Edges: the relation.'),
  targetName: z.string().nullable().describe('Edges: the target entity.'),
  description: z.string(),
  confidence: z.number(),
  supportCount: z.number().int(),
  extractor: z.string(),
  fromAgent: z.boolean().describe('Proposed by an agent (propose_knowledge): a person must approve it.'),
  reviewedBy: z.string().nullable(),
  url: z.string(),
  evidence: z.array(z.object({ slug: z.string(), pageTitle: z.string(), url: z.string(), heading: z.string(), quote: z.string(), confidence: z.number().nullable() })),
  pages: z.array(z.object({ slug: z.string(), title: z.string(), url: z.string(), quotes: z.number().int() })),
});

const actionOutcome = {
  actionId: z.string().nullable().describe('The undoable review action (curate_nodes operation "undo" takes it).'),
  summary: z.string(),
  details: z.record(z.string(), z.unknown()).describe('Everything the service reported (ids created, counts, skipped items…).'),
};

const policyRow = z.looseObject({
  cluster: z.string(),
  pages: z.number().int(),
  includedPages: z.number().int(),
  excludedPages: z.number().int(),
  action: z.string().nullable(),
  effectiveAction: z.string(),
  stale: z.boolean(),
});

/**
 * The curation server (/admin-mcp, admin tokens only): the review queue, curation, agent proposals, the inclusion
 * policy and page writes, through the same services as the web UI, with the token's user as the actor, so that each
 * change is journaled and audited as it would be from the web UI. Every call is audited as well (mcp.admin.<tool>).
 */
@Injectable()
export class AdminTools {
  constructor(
    private readonly queue: ReviewQueueService,
    private readonly review: ReviewService,
    private readonly curation: CurationService,
    private readonly undo: UndoService,
    private readonly transfer: GraphTransferService,
    private readonly policy: PolicyService,
    private readonly impact: PolicyImpactService,
    private readonly pages: PagesService,
    private readonly graph: PageGraphService,
    private readonly reads: AgentReadsRepository,
    private readonly audit: AuditService,
  ) {}

  server(baseUrl: string, origin: RequestOrigin): McpServer {
    const server = new McpServer(
      { name: ADMIN_SERVER_NAME, version: '0.1.0' },
      { instructions: 'Curation of a Kurate wiki as its admin: review proposals (list_proposals, inspect_proposal, review_proposals), curate the approved graph, propose knowledge (it waits for a person), set the inclusion policy, and write pages with optimistic versions. Every call is audited.' },
    );
    const audited: ToolCallListener = (tool, args, outcome) =>
      this.audit.record(origin.actor, `mcp.admin.${tool}`, null, { arguments: auditable(args), ok: outcome.ok, ...(outcome.error ? { error: outcome.error.slice(0, 500) } : {}) }, origin.ip);
    this.register(server, new WikiUrls(baseUrl), origin, audited);
    return server;
  }

  private register(server: McpServer, urls: WikiUrls, origin: RequestOrigin, audited: ToolCallListener): void {
    const summaryOf = (p: ProposalView): z.input<typeof proposalSummary> => ({
      id: p.id, kind: p.kind, status: p.status, name: p.name, type: p.type, sourceName: p.sourceName, predicate: p.predicate, targetName: p.targetName,
      description: p.description, confidence: Number(p.confidence), supportCount: p.supportCount, extractor: p.extractor, fromAgent: p.extractor === AGENT_SOURCE,
      reviewedBy: p.reviewedBy, url: urls.proposal(p.id),
      evidence: p.evidence.map((e) => ({ slug: e.slug, pageTitle: e.pageTitle, url: urls.absolute(e.href), heading: e.heading, quote: e.quote, confidence: e.confidence === null ? null : Number(e.confidence) })),
      pages: p.pages.map((pg) => ({ slug: pg.slug, title: pg.title, url: urls.absolute(pg.href), quotes: pg.quotes })),
    });

    defineTool(server, {
      name: 'list_proposals',
      title: 'The review queue',
      description: 'Proposals waiting for review (or reviewed ones, by status), filtered and sorted like the web review queue, each with its best evidence. Pass nextCursor back as cursor for more.',
      effect: 'read',
      input: {
        status: z.enum(['pending', 'approved', 'rejected', 'retired']).optional().describe('Default pending.'),
        kind: z.enum(['node', 'edge']).optional(),
        type: z.string().max(100).optional(),
        predicate: z.string().max(100).optional(),
        cluster: z.string().max(200).optional(),
        page: z.string().max(300).optional().describe('A page slug: proposals that page supports.'),
        extractor: z.string().max(100).optional().describe(`e.g. builtin, ollama, anthropic, import, ${AGENT_SOURCE}.`),
        minConfidence: z.number().min(0).max(1).optional(),
        q: z.string().max(200).optional().describe('Words in the name or an endpoint’s name.'),
        sort: z.enum(['confidence', 'support', 'age']).optional(),
        cursor: pagingInput.cursor,
        limit: pagingInput.limit,
      },
      output: { proposals: z.array(proposalSummary), total: z.number().int(), capped: z.boolean().describe('total is at least this (counting stops at 1,000).'), nextCursor: z.string().nullable() },
    }, async ({ sort, cursor, limit, status, ...filter }) => {
      const result = await this.queue.list({ filter: { ...filter, status: status ?? 'pending' }, sort, after: cursor, limit: limit ?? 25 });
      return { proposals: result.items.map(summaryOf), total: result.total, capped: result.capped, nextCursor: result.nextCursor };
    }, audited);

    defineTool(server, {
      name: 'inspect_proposal',
      title: 'One proposal with its evidence',
      description: 'A proposal with all its evidence (verbatim quotes, where in which page), its endpoints (edges: entity, pending or missing) and possible duplicates (entities with the same or a similar name or embedding).',
      effect: 'read',
      input: { id: entityIdInput('proposal') },
      output: {
        proposal: proposalSummary,
        evidenceTotal: z.number().int(),
        endpoints: z.record(z.string(), z.unknown()).nullable(),
        duplicates: z.array(z.record(z.string(), z.unknown())),
      },
    }, async ({ id }) => {
      const view = await this.queue.get(id);
      return { proposal: summaryOf(view), evidenceTotal: view.evidenceTotal, endpoints: view.endpoints ? { ...view.endpoints } : null, duplicates: view.duplicates.map((d) => ({ ...d })) };
    }, audited);

    defineTool(server, {
      name: 'review_proposals',
      title: 'Approve, edit-approve or reject proposals',
      description: `Reviews proposals as an admin would in the queue. "approve" and "reject" take ids (one or up to ${MAX_REVIEW_IDS}: one undoable bulk action); "reject" may instead take a filter with minConfidence (every matching pending proposal). "edit_approve" takes exactly one id and the edits (nodes: name, type, description, intoEntityId; edges: predicate, swapDirection). Proposals an agent made (fromAgent) cannot be approved here: a person approves them. Rejected signatures are not proposed again.`,
      effect: 'destructive',
      input: {
        decision: z.enum(['approve', 'edit_approve', 'reject']),
        ids: z.array(entityIdInput('proposal')).min(1).max(MAX_REVIEW_IDS).optional(),
        filter: z.object({
          kind: z.enum(['node', 'edge']).optional(), type: z.string().max(100).optional(), predicate: z.string().max(100).optional(),
          cluster: z.string().max(200).optional(), page: z.string().max(300).optional(), extractor: z.string().max(100).optional(), q: z.string().max(200).optional(),
        }).optional().describe('reject only: which pending proposals (with minConfidence).'),
        minConfidence: z.number().min(0).max(1).optional(),
        edits: z.object({
          name: z.string().max(200).optional(), type: z.string().max(100).optional(), description: z.string().max(2000).optional(),
          intoEntityId: entityIdInput().optional(), predicate: z.string().max(100).optional(), swapDirection: z.boolean().optional(),
        }).optional(),
        reason: z.string().max(1000).optional().describe('Why (kept in the audit trail; for reject, remembered with the rejection).'),
      },
      output: {
        actionId: z.string().nullable(),
        status: z.enum(['approved', 'rejected']),
        summary: z.string(),
        items: z.array(z.looseObject({ proposalId: z.string(), kind: z.enum(['node', 'edge']), nodeId: z.string().nullable(), edgeId: z.string().nullable() })),
        skipped: z.array(z.object({ proposalId: z.string(), reason: z.string() })),
      },
    }, async ({ decision, ids, filter, minConfidence, edits, reason }) => {
      if (decision === 'edit_approve') {
        if (ids?.length !== 1 || !edits) throw invalidArgument('edit_approve takes exactly one id in `ids` and the changes in `edits`.');
        await this.refuseAgentProposals(ids);
        return outcomeOf(await this.review.approve(ids[0], edits, reason ?? null, origin));
      }
      if (edits) throw invalidArgument('`edits` go with decision "edit_approve" only.');
      if (decision === 'approve') {
        if (!ids) throw invalidArgument('approve takes the proposals’ `ids` (a filter may only reject).');
        await this.refuseAgentProposals(ids);
        return outcomeOf(ids.length === 1 ? await this.review.approve(ids[0], {}, reason ?? null, origin) : await this.review.bulk({ action: 'approve', ids, reason }, origin));
      }
      if (!ids && (!filter || minConfidence === undefined)) throw invalidArgument('reject takes `ids`, or a `filter` with `minConfidence`.');
      if (ids?.length === 1) return outcomeOf(await this.review.reject(ids[0], reason ?? null, origin));
      return outcomeOf(await this.review.bulk({ action: 'reject', ids, filter: ids ? undefined : filter, minConfidence, limit: BULK_MAX_LIMIT, reason }, origin));
    }, audited);

    defineTool(server, {
      name: 'curate_nodes',
      title: 'Create, edit, delete, merge entities; undo',
      description: 'Changes the approved graph\'s entities as the web curation pages do, each one undoable action: "create" (name, type, aliases, description; origin manual), "update" (id and the fields to change), "delete" (id; reject: true also rejects its signature), "merge" (id into intoId: aliases united, edges and mentions re-pointed), "add_synonym" / "remove_synonym" (id and synonym: another name search understands as naming the entity), "undo" (actionId of any earlier review action).',
      effect: 'destructive',
      input: {
        operation: z.enum(['create', 'update', 'delete', 'merge', 'add_synonym', 'remove_synonym', 'undo']),
        id: entityIdInput().optional(),
        intoId: entityIdInput().optional(),
        actionId: entityIdInput('action').optional(),
        name: z.string().min(1).max(200).optional(),
        type: z.string().min(1).max(100).optional(),
        aliases: z.array(z.string().max(200)).max(100).optional(),
        description: z.string().max(2000).optional(),
        synonym: z.string().min(1).max(200).optional(),
        reject: z.boolean().optional(),
        reason: z.string().max(1000).optional(),
      },
      output: { ...actionOutcome, entity: nodeSchema.nullable() },
    }, async ({ operation, id, intoId, actionId, name, type, aliases, description, synonym, reject, reason }) => {
      const need = <T>(value: T | undefined, what: string): T => {
        if (value === undefined) throw invalidArgument(`${operation} needs \`${what}\`.`);
        return value;
      };
      const entityOf = (e: { id: string; name: string; type: string; aliases: string[]; description: string; origin: string }) =>
        ({ id: e.id, name: e.name, type: e.type, aliases: e.aliases, description: e.description, origin: e.origin, url: urls.adminEntity(e.id) });
      switch (operation) {
        case 'create': {
          const { actionId: done, summary, entity } = await this.curation.createEntity({ name: need(name, 'name'), type: need(type, 'type'), aliases, description }, origin);
          return { actionId: done, summary, entity: entityOf(entity), details: {} };
        }
        case 'update': {
          const { actionId: done, summary, entity } = await this.curation.updateEntity(need(id, 'id'), { name, type, aliases, description }, origin);
          return { actionId: done, summary, entity: entityOf(entity), details: {} };
        }
        case 'delete': {
          const { actionId: done, summary, ...details } = await this.curation.deleteEntity(need(id, 'id'), { reject: reject === true, reason: reason ?? null }, origin);
          return { actionId: done, summary, entity: null, details };
        }
        case 'merge': {
          const { actionId: done, summary, entity, ...details } = await this.curation.merge(need(id, 'id'), need(intoId, 'intoId'), origin);
          return { actionId: done, summary, entity: entityOf(entity), details };
        }
        case 'add_synonym':
        case 'remove_synonym': {
          const act = operation === 'add_synonym' ? this.curation.addSynonym.bind(this.curation) : this.curation.removeSynonym.bind(this.curation);
          const { actionId: done, summary, entity } = await act(need(id, 'id'), need(synonym, 'synonym'), origin);
          return { actionId: done, summary, entity: entityOf(entity), details: {} };
        }
        case 'undo': {
          const { summary, ...details } = await this.undo.undo(need(actionId, 'actionId'), origin);
          return { actionId: 'actionId' in details && typeof details.actionId === 'string' ? details.actionId : null, summary, entity: null, details };
        }
      }
    }, audited);

    defineTool(server, {
      name: 'curate_edges',
      title: 'Create, edit or delete typed relations',
      description: 'Changes the approved graph\'s typed edges, each one undoable action: "create" (sourceId, targetId, predicate; origin manual), "update" (id; predicate, swapDirection, weight), "delete" (id), "delete_and_reject" (id; also rejects its signature so extraction does not propose it again).',
      effect: 'destructive',
      input: {
        operation: z.enum(['create', 'update', 'delete', 'delete_and_reject']),
        id: entityIdInput('edge').optional(),
        sourceId: entityIdInput().optional(),
        targetId: entityIdInput().optional(),
        predicate: z.string().min(1).max(100).optional(),
        swapDirection: z.boolean().optional(),
        weight: z.number().min(0).max(1000).optional(),
        reason: z.string().max(1000).optional(),
      },
      output: { ...actionOutcome },
    }, async ({ operation, id, sourceId, targetId, predicate, swapDirection, weight, reason }) => {
      const need = <T>(value: T | undefined, what: string): T => {
        if (value === undefined) throw invalidArgument(`${operation} needs \`${what}\`.`);
        return value;
      };
      switch (operation) {
        case 'create': {
          const { actionId, summary, ...details } = await this.curation.createEdge(need(sourceId, 'sourceId'), need(targetId, 'targetId'), need(predicate, 'predicate'), origin);
          return { actionId, summary, details };
        }
        case 'update': {
          const { actionId, summary, ...details } = await this.curation.updateEdge(need(id, 'id'), { predicate, swapDirection, weight }, origin);
          return { actionId, summary, details };
        }
        case 'delete':
        case 'delete_and_reject': {
          const { actionId, summary, ...details } = await this.curation.deleteEdge(need(id, 'id'), { reject: operation === 'delete_and_reject', reason: reason ?? null }, origin);
          return { actionId, summary, details };
        }
      }
    }, audited);

    defineTool(server, {
      name: 'propose_knowledge',
      title: 'Propose entities and relations for review',
      description: `Adds your own proposals to the review queue, marked as from an agent (extractor "${AGENT_SOURCE}"). They are never approved by this call nor by review_proposals: a person reviews them. Entities need a name and a type of the vocabulary (see discover_schema on /knowledge-mcp); relations join two entities of this call by their \`key\`. Rejected or known ones are reported, not proposed again. dryRun: validate only.`,
      effect: 'write',
      input: {
        entities: z.array(z.object({
          key: z.string().min(1).max(100).describe('Your id for this entity within the call (relations refer to it).'),
          name: z.string().min(1).max(200),
          type: z.string().min(1).max(100),
          aliases: z.array(z.string().max(200)).max(20).optional(),
          description: z.string().max(2000).optional(),
          confidence: z.number().min(0).max(1).optional(),
        })).min(1).max(200),
        relations: z.array(z.object({
          source: z.string().min(1).max(100), target: z.string().min(1).max(100), predicate: z.string().min(1).max(100), confidence: z.number().min(0).max(1).optional(),
        })).max(500).optional(),
        dryRun: z.boolean().optional(),
      },
      output: {
        actionId: z.string().nullable(),
        summary: z.string(),
        dryRun: z.boolean(),
        nodes: z.looseObject({ received: z.number().int(), accepted: z.number().int(), existing: z.number().int(), refused: z.array(z.looseObject({ reason: z.string() })) }),
        edges: z.looseObject({ received: z.number().int(), accepted: z.number().int(), existing: z.number().int(), refused: z.array(z.looseObject({ reason: z.string() })) }),
      },
    }, async ({ entities, relations, dryRun }) => {
      const report = await this.transfer.import({
        graph: { nodes: entities.map(({ key, ...e }) => ({ id: key, ...e })), edges: relations },
        mode: 'pending',
        source: AGENT_SOURCE,
        dryRun,
      }, origin);
      return { actionId: report.actionId, summary: report.summary, dryRun: report.dryRun, nodes: report.nodes, edges: report.edges };
    }, audited);

    defineTool(server, {
      name: 'policy_list',
      title: 'The inclusion policy per cluster',
      description: 'Every cluster with its pages, how many may feed the knowledge graph, its own policy (include, exclude or none), what applies (its own, its parent’s, or default-exclude), and whether it is stale (not reviewed for a while).',
      effect: 'read',
      input: { staleOnly: z.boolean().optional() },
      output: { clusters: z.array(policyRow) },
    }, async ({ staleOnly }) => ({ clusters: (await this.policy.listClusters({ staleOnly })).map((c) => ({ ...c })) }), audited);

    defineTool(server, {
      name: 'policy_set',
      title: 'Include, exclude or clear a cluster',
      description: 'Sets a cluster’s inclusion policy ("include" or "exclude"; "clear" removes its own row so its parent’s or the default applies), with a reason for the audit trail. Excluding is soft: what only its pages support is hidden at once, kept, and comes back on re-inclusion. Use policy_estimate first to see the effect.',
      effect: 'destructive',
      input: {
        cluster: z.string().min(1).max(200),
        action: z.enum(['include', 'exclude', 'clear']),
        reason: z.string().trim().min(1, 'give a reason: it goes to the audit trail').max(1000),
      },
      output: { cluster: policyRow, reconciled: z.object({ scanned: z.number().int(), nowIncluded: z.number().int(), nowExcluded: z.number().int() }) },
    }, async ({ cluster, action, reason }) => {
      const { reconciled, ...row } = action === 'clear' ? await this.policy.clearPolicy(cluster, reason, origin) : await this.policy.setPolicy(cluster, { action, reason }, origin);
      return { cluster: row, reconciled };
    }, audited);

    defineTool(server, {
      name: 'policy_explain',
      title: 'Why a page is in or out of the knowledge graph',
      description: 'For one page: whether it may feed the knowledge graph, the rule that decided (trash, system page, page override, cluster policy, default), in a sentence.',
      effect: 'read',
      input: { slug: slugInput },
      output: { slug: z.string(), title: z.string(), included: z.boolean(), reason: z.string(), explanation: z.string(), policyCluster: z.string().nullable(), clusters: z.array(z.string()) },
    }, async ({ slug }) => {
      const e = await this.policy.explain(slug);
      return { slug: e.slug, title: e.title, included: e.included, reason: e.reason, explanation: e.explanation, policyCluster: e.policyCluster, clusters: e.clusters };
    }, audited);

    defineTool(server, {
      name: 'policy_estimate',
      title: 'What a policy change would hide or reveal',
      description: 'A dry run of policy_set: how many pages, chunks, mentions, proposals, entities and edges would be hidden or revealed. Changes nothing.',
      effect: 'read',
      input: { cluster: z.string().min(1).max(200), action: z.enum(['include', 'exclude', 'clear']) },
      output: {
        cluster: z.string(), action: z.string(), currentAction: z.string().nullable(),
        changes: z.array(z.object({ kind: z.string(), hide: z.number().int(), reveal: z.number().int() })), summary: z.string(),
      },
    }, async ({ cluster, action }) => {
      const e = await this.impact.estimate(cluster, action);
      return { cluster: e.cluster, action: e.action, currentAction: e.currentAction, changes: e.changes.map((c) => ({ kind: c.kind, hide: c.hide, reveal: c.reveal })), summary: e.summary };
    }, audited);

    defineTool(server, {
      name: 'write_page',
      title: 'Create a page',
      description: 'Creates a page from Markdown (optionally with YAML frontmatter: title, cluster, tags, type, aliases…). The title comes from the frontmatter or `title`. Refused when a page with that name exists (then use update_page).',
      effect: 'write',
      input: {
        title: z.string().min(1).max(300).optional(),
        body: z.string().max(1_000_000),
        message: z.string().max(500).optional().describe('The revision message.'),
      },
      output: { page: pageFull },
    }, async ({ title, body, message }) => ({ page: fullOf(await this.pages.create({ title, body, message }, origin.actor), urls) }), audited);

    defineTool(server, {
      name: 'update_page',
      title: 'Save a new version of a page',
      description: 'Replaces a page’s source (frontmatter and Markdown). Pass the version you read as baseVersion: if someone saved since, nothing is written and the error carries the current version and text, and yours, to merge and retry.',
      effect: 'write',
      input: {
        slug: slugInput,
        body: z.string().max(1_000_000),
        baseVersion: z.number().int().min(1).describe('The `version` of the page you edited.'),
        message: z.string().max(500).optional(),
      },
      output: { page: pageFull, changed: z.boolean().describe('False when the text was the same: no revision written.') },
    }, async ({ slug, body, baseVersion, message }) => {
      const { page, changed } = await this.pages.update(slug, { body, baseVersion, message }, origin.actor);
      return { page: fullOf(page, urls), changed };
    }, audited);

    defineTool(server, {
      name: 'get_page_history',
      title: 'A page’s revisions',
      description: 'Every saved version of a page, newest first: version, author, time, message.',
      effect: 'read',
      input: { slug: slugInput, ...pagingInput },
      output: {
        page: z.object({ slug: z.string(), title: z.string(), url: z.string(), version: z.number().int() }),
        revisions: z.array(z.object({ version: z.number().int(), title: z.string(), author: z.string(), message: z.string(), createdAt: z.string() })),
        ...pagingOutput,
      },
    }, async ({ slug, cursor, limit }) => {
      const { page, revisions } = await this.pages.history(slug);
      const window = pageOf(`history:${page.id}`, revisions, cursor, limit);
      return {
        page: { slug: page.slug, title: page.title, url: urls.page(page.slug), version: page.version },
        revisions: window.items.map((r) => ({ version: r.version, title: r.title, author: r.author, message: r.message, createdAt: r.createdAt.toISOString() })),
        total: window.total,
        nextCursor: window.nextCursor,
      };
    }, audited);

    defineTool(server, {
      name: 'get_orphaned_pages',
      title: 'Pages nothing links to',
      description: 'Live pages no other page links to (candidates for linking from a hub, or for the trash).',
      effect: 'read',
      input: { ...pagingInput },
      output: { pages: z.array(z.object({ slug: z.string(), title: z.string(), url: z.string(), cluster: z.string().nullable() })), ...pagingOutput },
    }, async ({ cursor, limit }) => {
      const window = readCursor('orphans', cursor, limit);
      const { items, total } = await this.graph.orphans(window.limit, window.offset);
      return { pages: items.map((p) => ({ slug: p.slug, title: p.title, url: urls.page(p.slug), cluster: p.cluster })), total, nextCursor: nextCursor('orphans', window, items.length, total) };
    }, audited);

    defineTool(server, {
      name: 'get_wiki_stats',
      title: 'The wiki in numbers',
      description: 'Pages (live, in the trash, revisions, allowed to feed the knowledge graph), links (resolved, broken), the visible knowledge graph (entities, typed and co-mention edges) and proposals waiting for review.',
      effect: 'read',
      input: {},
      output: {
        pages: z.object({ live: z.number().int(), inTrash: z.number().int(), revisions: z.number().int(), includedInGraph: z.number().int(), clusters: z.number().int(), tags: z.number().int() }),
        links: z.object({ resolved: z.number().int(), broken: z.number().int() }),
        graph: z.object({ entities: z.number().int(), typedEdges: z.number().int(), coMentionEdges: z.number().int(), pendingProposals: z.number().int() }),
      },
    }, async () => {
      const [pages, links, graph, facets] = [await this.reads.pageCounts(), await this.graph.linkCounts(), await this.reads.graphCounts(), await this.pages.facets()];
      return {
        pages: { live: pages.pages, inTrash: pages.inTrash, revisions: pages.revisions, includedInGraph: pages.includedInGraph, clusters: facets.clusters.length, tags: facets.tags.length },
        links: { resolved: links.resolved, broken: links.broken },
        graph: { entities: graph.nodes, typedEdges: graph.typedEdges, coMentionEdges: graph.coMentionEdges, pendingProposals: graph.pendingProposals },
      };
    }, audited);
  }

  /**
   * An agent's proposals wait for a person: approving them over MCP is refused, also indirectly (an edge whose
   * pending endpoint an agent proposed would approve that endpoint with it).
   */
  private async refuseAgentProposals(ids: string[]): Promise<void> {
    for (const id of ids) {
      const proposal = await this.queue.get(id);
      const endpoints = proposal.endpoints ? [proposal.endpoints.source, proposal.endpoints.target] : [];
      const pendingEndpoints = endpoints.filter((e) => e.state === 'pending' && e.proposalId !== null).map((e) => e.proposalId!);
      const byAgent = proposal.extractor === AGENT_SOURCE ? id : (await Promise.all(pendingEndpoints.map((p) => this.queue.get(p)))).find((p) => p.extractor === AGENT_SOURCE)?.id;
      if (byAgent) {
        const what = byAgent === id ? `Proposal ${id} was made by an agent` : `Proposal ${id} would approve with it proposal ${byAgent}, which an agent made`;
        throw invalidArgument(`${what}: a person approves it, in the review queue (/admin/knowledge-graph), not an agent.`);
      }
    }
  }
}

/** A review outcome as plain data (each approved item with what it created). */
function outcomeOf(outcome: ReviewOutcome) {
  return { ...outcome, items: outcome.items.map((item) => ({ ...item })) };
}

/** The arguments as the audit trail keeps them: long texts (page bodies) by length only. */
function auditable(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args ?? {}).map(([key, value]) => [key, typeof value === 'string' && value.length > 200 ? `(${value.length} characters)` : value]));
}
