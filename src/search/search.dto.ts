import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { applyDecorators } from '@nestjs/common';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { toNumber } from '../common/dto-transforms.js';

/** An optional free-text query parameter of at most `maxLength` characters. */
function OptionalText(description: string, maxLength: number) {
  return applyDecorators(ApiPropertyOptional({ description, maxLength }), IsOptional(), IsString(), MaxLength(maxLength));
}

/** An optional `true`/`false` query parameter. */
function OptionalFlag(name: string, description: string) {
  return applyDecorators(ApiPropertyOptional({ description, enum: ['true', 'false'] }), IsOptional(), IsIn(['true', 'false'], { message: `${name} must be true or false` }));
}

export class SearchQueryDto {
  @OptionalText('Words or a question (any word may match); "quoted phrases" group words and -word excludes.', 500)
  q?: string;

  @ApiPropertyOptional({ minimum: 1, default: 1 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(1000) page?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(100) perPage?: number;

  @OptionalFlag(
    'explain',
    'Adds `explain` to each hit: the list that found it, its rank in each list (lexical, vector, graph), the matched terms and what each added, the entities it mentions near the query and their hop distance.',
  )
  explain?: 'true' | 'false';

  @OptionalText('Only pages in this cluster (or a sub-cluster of it).', 200)
  cluster?: string;

  @OptionalText('Only pages with this tag.', 200)
  tag?: string;

  @OptionalText('Only pages of this type (frontmatter `type`).', 200)
  type?: string;

  @OptionalFlag('includeExcluded', 'Admins only: let knowledge-graph signals (chunks, entities) from soft-excluded pages count too. Anyone else gets 403.')
  includeExcluded?: 'true' | 'false';
}

export class SearchSuggestQueryDto {
  @OptionalText('What the reader has typed so far.', 200)
  q?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 20, default: 8 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(20) limit?: number;
}


class SearchListRankDto {
  @ApiProperty() rank: number;
  @ApiProperty({ description: "The list's own score: BM25 (lexical), summed cosine similarity of the best chunks (vector), entity proximity (graph)." }) score: number;
}

class SearchListsDto {
  @ApiProperty({ type: SearchListRankDto, nullable: true }) lexical: SearchListRankDto | null;
  @ApiProperty({ type: SearchListRankDto, nullable: true }) vector: SearchListRankDto | null;
  @ApiProperty({ type: SearchListRankDto, nullable: true }) graph: SearchListRankDto | null;
}

class SearchTermDto {
  @ApiProperty({ description: 'The reader\'s word that matched (or the other name of something the query names, searched for too).' }) term: string;
  @ApiProperty({ description: 'Its stem (PostgreSQL lexeme).' }) lexeme: string;
  @ApiProperty() contribution: number;
}

class SearchExplainEntityDto {
  @ApiProperty() name: string;
  @ApiProperty() type: string;
  @ApiProperty({ description: '0: the query names it; n: n approved edges away.' }) hops: number;
}

class SearchDescribedByDto {
  @ApiProperty({ description: 'Rank among the pages whose entity other pages describe in the query\'s words.' }) rank: number;
  @ApiProperty() score: number;
  @ApiProperty({ type: [String], description: 'The reader\'s words those sentences hold.' }) words: string[];
}

class SearchExplanationDto {
  @ApiProperty({
    enum: ['lexical', 'vector', 'graph', 'linked', 'fuzzy-title'],
    description: 'The list that added most to the fused score; linked: a slot for a page the best hits link to; fuzzy-title: no word matched, the title resembles the query.',
  })
  source: string;
  @ApiProperty() rank: number;
  @ApiProperty({ type: SearchListsDto }) lists: SearchListsDto;
  @ApiProperty({ type: [SearchTermDto] }) terms: SearchTermDto[];
  @ApiProperty({ type: String, nullable: true, description: 'The query\'s words that name this page (its title or an alias, or an approved entity bearing its name).' }) namedBy: string | null;
  @ApiProperty({ type: [Number], description: 'For a page in a linked slot: the ranks of the best hits that link to it.' }) linkedFrom: number[];
  @ApiProperty({
    type: SearchDescribedByDto,
    nullable: true,
    description: 'What other pages say about the approved entity this page bears the name of, when their sentences hold the query\'s words (null: none).',
  })
  describedBy: SearchDescribedByDto | null;
  @ApiProperty({ type: [SearchExplainEntityDto] }) entities: SearchExplainEntityDto[];
}

class SearchHitDto {
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, nullable: true }) cluster: string | null;
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty({ type: String, nullable: true }) type: string | null;
  @ApiProperty({ description: 'Escaped text with the matched words in <mark>.' }) snippetHtml: string;
  @ApiProperty({ description: 'The fused score: Σ weight / (k + rank) over the lists (0 for a linked slot; a fuzzy title\'s similarity).' }) score: number;
  @ApiProperty() url: string;
  @ApiProperty({ description: 'The page URL with the anchor of the section the snippet comes from.' }) sectionUrl: string;
  @ApiProperty({ type: [String], description: 'That section\'s heading path.' }) section: string[];
  @ApiPropertyOptional({ type: SearchExplanationDto }) explain?: SearchExplanationDto;
}

class SearchTitleLinkDto {
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() url: string;
}

class RelatedEntityDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() type: string;
  @ApiProperty({ type: Number, nullable: true, description: '0: named by the query; 1: one edge away; null: mentioned by the results shown.' }) hops: number | null;
  @ApiProperty() searchUrl: string;
  @ApiProperty({ description: 'The entity’s reader page, /entities/<id>.' }) url: string;
}

class EntityCardRefDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() type: string;
  @ApiProperty() url: string;
}

class EntityCardRelatedDto {
  @ApiProperty() predicate: string;
  @ApiProperty({ enum: ['out', 'in'], description: 'out: this entity → them; in: them → this entity.' }) direction: string;
  @ApiProperty({ type: [EntityCardRefDto] }) entities: EntityCardRefDto[];
}

class EntityCardPageDto {
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() url: string;
}

class EntityCardDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() type: string;
  @ApiProperty({ type: [String] }) aliases: string[];
  @ApiProperty({ description: 'One line: the entity\'s description, else the first passage that mentions it.' }) description: string;
  @ApiProperty({ description: 'The entity\'s reader page, /entities/<id>.' }) url: string;
  @ApiProperty({ type: [EntityCardRelatedDto] }) related: EntityCardRelatedDto[];
  @ApiProperty({ type: [EntityCardPageDto], description: 'The pages that mention it most.' }) pages: EntityCardPageDto[];
  @ApiProperty() totalPages: number;
}

class SearchNoticeDto {
  @ApiProperty({ enum: ['vector-unavailable'] }) code: string;
  @ApiProperty() message: string;
}

class SearchFiltersDto {
  @ApiPropertyOptional() cluster?: string;
  @ApiPropertyOptional() tag?: string;
  @ApiPropertyOptional() type?: string;
}

export class SearchResultDto {
  @ApiProperty() query: string;
  @ApiProperty({ type: [SearchHitDto] }) hits: SearchHitDto[];
  @ApiProperty() total: number;
  @ApiProperty() page: number;
  @ApiProperty() perPage: number;
  @ApiProperty({ type: [SearchTitleLinkDto] }) didYouMean: SearchTitleLinkDto[];
  @ApiProperty({ type: [RelatedEntityDto] }) relatedEntities: RelatedEntityDto[];
  @ApiProperty({ enum: ['lexical', 'vector', 'graph'], isArray: true, description: 'The lists that ranked this query.' }) lists: string[];
  @ApiProperty({ type: [SearchNoticeDto], description: 'E.g. vector-unavailable: the embedder failed and the results use words and the graph only.' }) notices: SearchNoticeDto[];
  @ApiProperty({ type: SearchFiltersDto }) filters: SearchFiltersDto;
  @ApiProperty({ type: EntityCardDto, nullable: true, description: 'The approved entity the query names (most of its words), on the first page; null: none.' }) entity: EntityCardDto | null;
}
