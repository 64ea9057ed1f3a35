import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { MAX_VAULT_PATH_LENGTH } from '../../common/vault-paths.js';
import { MAX_BODY_CHARS, MAX_TITLE_LENGTH } from './page.dto.js';

/** One HTTP round trip per page is too slow for a vault; a batch is bounded so one request stays small and quick. */
export const MAX_IMPORT_BATCH = 200;
const MAX_CLUSTER_LENGTH = 200;

export class ImportPageDto {
  @ApiProperty({
    description: 'The file path inside the vault (`Getting started/Index.md`): reported back, written into the revision message, and kept so that `kurate export` writes the page back there.',
    maxLength: MAX_VAULT_PATH_LENGTH,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_VAULT_PATH_LENGTH)
  path: string;

  @ApiProperty({ description: 'The page title (usually the file name); the frontmatter `title:` wins when present.', maxLength: MAX_TITLE_LENGTH })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TITLE_LENGTH)
  title: string;

  @ApiProperty({ description: 'The page source exactly as written: optional YAML frontmatter, then Markdown.' })
  @IsString()
  @MaxLength(MAX_BODY_CHARS)
  body: string;

  @ApiPropertyOptional({
    description: 'The cluster whose `cluster:` line the importer added to the body for the file\'s folder; `kurate export` leaves that line out again.',
    maxLength: MAX_CLUSTER_LENGTH,
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CLUSTER_LENGTH)
  addedCluster?: string;
}

export class ImportBatchDto {
  @ApiProperty({ type: [ImportPageDto], minItems: 1, maxItems: MAX_IMPORT_BATCH })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_IMPORT_BATCH, { message: `A batch holds at most ${MAX_IMPORT_BATCH} pages; split the import into several requests.` })
  @IsObject({ each: true, message: '$property must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => ImportPageDto)
  pages: ImportPageDto[];
}

export type ImportStatus = 'created' | 'updated' | 'unchanged' | 'failed';
export const IMPORT_STATUSES: readonly ImportStatus[] = ['created', 'updated', 'unchanged', 'failed'];

export class ImportPageResult {
  @ApiProperty() path: string;
  @ApiProperty({ description: 'The slug the page has (or would have had); empty when the title has no letter or digit.' }) slug: string;
  @ApiProperty({ enum: IMPORT_STATUSES }) status: ImportStatus;
  @ApiPropertyOptional({ description: 'Why the page failed, e.g. "Invalid frontmatter at line 3: …".' }) error?: string;
}

export class ImportCounts {
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() failed: number;
}

export class ImportBatchResponse {
  @ApiProperty({ type: [ImportPageResult], description: 'One result per page, in the order sent.' }) results: ImportPageResult[];
  @ApiProperty({ type: ImportCounts }) counts: ImportCounts;
}

export class WikiSummaryResponse {
  @ApiProperty({ description: 'Live pages.' }) pages: number;
  @ApiProperty({ description: 'Links (one per source page and target) that reach a live page.' }) resolvedLinks: number;
  @ApiProperty({ description: 'Links whose target page does not exist.' }) brokenLinks: number;
  @ApiProperty({ description: 'Distinct missing pages that broken links point at.' }) wantedPages: number;
  @ApiProperty({ description: 'Live pages no other live page links to.' }) orphans: number;
}
