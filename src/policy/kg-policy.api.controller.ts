import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse, ApiBearerAuth, ApiConflictResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiNotFoundResponse,
  ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags, ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { SlugPipe } from '../pages/slug.pipe.js';
import {
  AuditListResponse, AuditQueryDto, BootstrapDto, BootstrapResponse, ClearPolicyDto, ClusterDetailResponse, ClusterListResponse,
  EstimateDto, EstimateResponse, ExplainResponse, ListClustersQueryDto, PendingListResponse, PolicyChangeResponse, PurgeDto,
  PurgeResponse, ReviewPolicyDto, SetPolicyDto,
} from './dto/kg-policy.dto.js';
import {
  AUDIT_TSV, CLUSTER_CHANGE_TSV, CLUSTER_LIST_TSV, CLUSTER_TSV, ESTIMATE_TSV, EXPLAIN_TSV, PENDING_TSV, PURGE_TSV,
} from './kg-policy.tsv.js';
import { PolicyImpactService } from './policy-impact.service.js';
import { PolicyService } from './policy.service.js';
import { TSV_MEDIA_TYPE, TsvInterceptor, TsvResponse } from './tsv.js';

const CLUSTER_PARAM = { name: 'cluster', description: 'A cluster slug; a sub-cluster as parent%2Fchild (the slash URL-encoded).' };

/**
 * The inclusion policy as JSON (admins only). The HTML pages live beside it: /admin/kg-policy and /admin/kg-policy/ui/*.
 * List routes also answer `Accept: text/tab-separated-values`, for bin/kg-policy.sh.
 */
@ApiTags('kg-policy')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@ApiProduces('application/json', TSV_MEDIA_TYPE)
@Controller('admin/kg-policy')
@Access('admin')
@UseInterceptors(TsvInterceptor)
export class KgPolicyApiController {
  constructor(
    private readonly policy: PolicyService,
    private readonly impact: PolicyImpactService,
  ) {}

  @Get('clusters')
  @ApiOperation({ summary: 'Every cluster named by a page or a policy: page counts, action, reason, who set it and when, staleness' })
  @ApiOkResponse({ type: ClusterListResponse })
  @TsvResponse(CLUSTER_LIST_TSV)
  async list(@Query() query: ListClustersQueryDto): Promise<ClusterListResponse> {
    return { items: await this.policy.listClusters({ staleOnly: query.stale }), reviewDays: this.policy.reviewDays };
  }

  @Get('clusters/:cluster')
  @ApiOperation({ summary: 'One cluster, with its recent audit trail' })
  @ApiParam(CLUSTER_PARAM)
  @ApiOkResponse({ type: ClusterDetailResponse })
  @ApiNotFoundResponse({ description: 'No page names the cluster and it has no policy.' })
  @TsvResponse(CLUSTER_TSV)
  get(@Param('cluster') cluster: string): Promise<ClusterDetailResponse> {
    return this.policy.getCluster(cluster);
  }

  @Put('clusters/:cluster')
  @ApiOperation({ summary: 'Sets the cluster’s policy (include or exclude, with a reason); its pages are reconciled before the answer' })
  @ApiParam(CLUSTER_PARAM)
  @ApiOkResponse({ type: PolicyChangeResponse })
  @ApiBadRequestResponse({ description: 'Unknown action, or no reason.' })
  @ApiNotFoundResponse({ description: 'No page names the cluster and it has no policy.' })
  @TsvResponse(CLUSTER_CHANGE_TSV)
  set(@Param('cluster') cluster: string, @Body() dto: SetPolicyDto, @Origin() origin: RequestOrigin): Promise<PolicyChangeResponse> {
    return this.policy.setPolicy(cluster, dto, origin);
  }

  @Delete('clusters/:cluster')
  @ApiOperation({ summary: 'Clears the cluster’s own policy (with a reason): its parent’s row, or the default exclude, applies again' })
  @ApiParam(CLUSTER_PARAM)
  @ApiOkResponse({ type: PolicyChangeResponse })
  @ApiNotFoundResponse({ description: 'The cluster has no policy of its own.' })
  @TsvResponse(CLUSTER_CHANGE_TSV)
  clear(@Param('cluster') cluster: string, @Body() dto: ClearPolicyDto, @Origin() origin: RequestOrigin): Promise<PolicyChangeResponse> {
    return this.policy.clearPolicy(cluster, dto.reason, origin);
  }

  @Post('clusters/:cluster/review')
  @HttpCode(200)
  @ApiOperation({ summary: 'Marks the policy reviewed (it is no longer stale)' })
  @ApiParam(CLUSTER_PARAM)
  @ApiOkResponse({ type: ClusterDetailResponse })
  @ApiNotFoundResponse({ description: 'The cluster has no policy of its own.' })
  @TsvResponse(CLUSTER_TSV)
  review(@Param('cluster') cluster: string, @Body() dto: ReviewPolicyDto, @Origin() origin: RequestOrigin) {
    return this.policy.markReviewed(cluster, dto.note, origin);
  }

  @Post('clusters/:cluster/purge')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Hard exclude: deletes what derives only from the cluster’s excluded pages',
    description: 'A dry run (the default) states what would go. A real purge needs dryRun: false and confirm: "<cluster>"; it runs in one transaction and is audited.',
  })
  @ApiParam(CLUSTER_PARAM)
  @ApiOkResponse({ type: PurgeResponse })
  @ApiBadRequestResponse({ description: 'dryRun is false and confirm does not repeat the cluster name.' })
  @ApiConflictResponse({ description: 'The cluster is included.' })
  @TsvResponse(PURGE_TSV)
  purge(@Param('cluster') cluster: string, @Body() dto: PurgeDto, @Origin() origin: RequestOrigin): Promise<PurgeResponse> {
    return this.impact.purge(cluster, dto, origin);
  }

  @Get('explain/:slug')
  @ApiOperation({ summary: 'Whether a page may feed the knowledge graph, and why, in words' })
  @ApiOkResponse({ type: ExplainResponse })
  @ApiNotFoundResponse({ description: 'No such page.' })
  @TsvResponse(EXPLAIN_TSV)
  explain(@Param('slug', SlugPipe) slug: string): Promise<ExplainResponse> {
    return this.policy.explain(slug);
  }

  @Get('pending')
  @ApiOperation({ summary: 'Clusters named by pages that no policy covers yet (their pages are excluded by default)' })
  @ApiOkResponse({ type: PendingListResponse })
  @TsvResponse(PENDING_TSV)
  async pending(): Promise<PendingListResponse> {
    return { items: await this.policy.pending() };
  }

  @Get('audit')
  @ApiOperation({ summary: 'The policy audit trail, newest first' })
  @ApiOkResponse({ type: AuditListResponse })
  @TsvResponse(AUDIT_TSV)
  async audit(@Query() query: AuditQueryDto): Promise<AuditListResponse> {
    return { items: await this.policy.auditTrail(query) };
  }

  @Post('estimate')
  @HttpCode(200)
  @ApiOperation({ summary: 'How many pages, chunks, mentions, proposals, nodes and edges a change would hide or reveal (nothing is changed)' })
  @ApiOkResponse({ type: EstimateResponse })
  @ApiNotFoundResponse({ description: 'No page names the cluster and it has no policy.' })
  @TsvResponse(ESTIMATE_TSV)
  estimate(@Body() dto: EstimateDto): Promise<EstimateResponse> {
    return this.impact.estimate(dto.cluster, dto.action);
  }

  @Post('bootstrap')
  @ApiOperation({ summary: 'Sets the first policies at once (e.g. before an import); refused once any policy exists' })
  @ApiCreatedResponse({ type: BootstrapResponse })
  @ApiConflictResponse({ description: 'Policies already exist.' })
  @TsvResponse(CLUSTER_LIST_TSV)
  async bootstrap(@Body() dto: BootstrapDto, @Origin() origin: RequestOrigin): Promise<BootstrapResponse> {
    return { items: await this.policy.bootstrap(dto.policies, origin) };
  }
}
