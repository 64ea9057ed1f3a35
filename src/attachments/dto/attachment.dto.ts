import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { toNumber } from '../../common/dto-transforms.js';
import { baseNameOf, embedSnippetOf, fileUrlOf, MAX_ATTACHMENT_PATH_LENGTH } from '../attachment-paths.js';
import type { AttachmentRow, ListedAttachment, ReferencingPage } from '../attachments.repository.js';
import { CONFLICT_RULES, type ConflictRule, type UploadStatus } from '../attachments.service.js';
import type { PageFile } from '../../pages/page-files.js';

/** The text fields of `POST /api/attachments` (multipart/form-data, beside the `file` part). */
export class UploadAttachmentDto {
  @ApiPropertyOptional({ description: 'Where the file goes in the wiki, `/`-separated (`assets/logo.png`); default: the file name.', maxLength: MAX_ATTACHMENT_PATH_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ATTACHMENT_PATH_LENGTH)
  path?: string;

  @ApiPropertyOptional({
    enum: CONFLICT_RULES,
    default: 'rename',
    description: 'When the path holds another file: `rename` stores this one as `name 1.ext` (then 2, …), `replace` overwrites it (what import does), `fail` answers 409.',
  })
  @IsOptional()
  @IsIn(CONFLICT_RULES)
  onConflict?: ConflictRule;
}

/** The multipart body, for the OpenAPI description. */
export class UploadAttachmentBody extends UploadAttachmentDto {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The file (one per request). Its type is sniffed from its bytes.' })
  file: unknown;
}

export class AttachmentsQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(100000) page?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 100 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(500) perPage?: number;
}

export class AttachmentResponse {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'The path in the wiki, as in the vault it came from.' }) path: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'Where it is served (`GET /files/<path>`).' }) url: string;
  @ApiProperty({ description: 'The type sniffed from the bytes (never the one the uploader claimed).' }) mediaType: string;
  @ApiProperty() sizeBytes: number;
  @ApiProperty() sha256: string;
  @ApiProperty({ description: 'What to write in a page to embed it, e.g. `![[logo.png]]`.' }) embed: string;
  @ApiProperty() createdBy: string;
  @ApiProperty() createdAt: Date;
  @ApiProperty() updatedBy: string;
  @ApiProperty() updatedAt: Date;
}

export class UploadResponse extends AttachmentResponse {
  @ApiProperty({ enum: ['created', 'updated', 'unchanged'] }) status: UploadStatus;
}

export class ReferencingPageResponse {
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty({ description: 'Shown to admins only.' }) inTrash: boolean;
}

export class ListedAttachmentResponse extends AttachmentResponse {
  @ApiProperty({ type: [ReferencingPageResponse], description: 'The pages whose text references the file.' }) pages: ReferencingPage[];
}

export class AttachmentListResponse {
  @ApiProperty({ type: [ListedAttachmentResponse] }) items: ListedAttachmentResponse[];
  @ApiProperty() total: number;
  @ApiProperty() page: number;
  @ApiProperty() perPage: number;
}

export class PageFileResponse {
  @ApiProperty() path: string;
  @ApiProperty() name: string;
  @ApiProperty() url: string;
  @ApiProperty() mediaType: string;
  @ApiProperty() sizeBytes: number;
  @ApiProperty({ description: 'The page version whose text first referenced the file.' }) addedInVersion: number;
}

export function attachmentResponse(row: AttachmentRow): AttachmentResponse {
  return {
    id: row.id, path: row.path, name: baseNameOf(row.path), url: fileUrlOf(row.path), mediaType: row.mediaType,
    sizeBytes: Number(row.sizeBytes), sha256: row.sha256, embed: embedSnippetOf(row.path),
    createdBy: row.createdBy, createdAt: row.createdAt, updatedBy: row.updatedBy, updatedAt: row.updatedAt,
  };
}

export function listedAttachmentResponse(row: ListedAttachment): ListedAttachmentResponse {
  return { ...attachmentResponse(row), pages: row.pages };
}

export function pageFileResponse(file: PageFile): PageFileResponse {
  return { path: file.path, name: baseNameOf(file.path), url: file.url, mediaType: file.mediaType, sizeBytes: file.sizeBytes, addedInVersion: file.addedInVersion };
}
