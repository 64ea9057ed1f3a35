import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { MAX_VERSION } from '../version.pipe.js';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, MaxLength, Min, Max, MinLength } from 'class-validator';
import { toBoolean, toNumber } from '../../common/dto-transforms.js';

export const MAX_TITLE_LENGTH = 300;
export const MAX_MESSAGE_LENGTH = 500;
// The body limit proper is the request size limit (KURATE_MAX_BODY_BYTES); this bounds the text field itself.
export const MAX_BODY_CHARS = 1_000_000;


export class CreatePageDto {
  @ApiPropertyOptional({ description: 'The page title; the frontmatter `title:` wins when present.', maxLength: MAX_TITLE_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TITLE_LENGTH)
  title?: string;

  @ApiProperty({ description: 'The page source: optional YAML frontmatter between `---` lines, then Markdown.' })
  @IsString()
  @MaxLength(MAX_BODY_CHARS)
  body: string;

  @ApiPropertyOptional({ description: 'A short note for the page history.', maxLength: MAX_MESSAGE_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_MESSAGE_LENGTH)
  message?: string;
}

export class UpdatePageDto {
  @ApiProperty({ description: 'The new page source (frontmatter + Markdown).' })
  @IsString()
  @MaxLength(MAX_BODY_CHARS)
  body: string;

  @ApiProperty({ description: 'The version this edit started from. A save against an older version is refused with 409.', minimum: 1 })
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  baseVersion: number;

  @ApiPropertyOptional({ maxLength: MAX_MESSAGE_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_MESSAGE_LENGTH)
  message?: string;
}

export class RenamePageDto {
  @ApiProperty({ description: 'The new title; the slug follows it and the old slug redirects.', maxLength: MAX_TITLE_LENGTH })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TITLE_LENGTH)
  title: string;

  @ApiPropertyOptional({ description: 'Also rewrite `[[links]]` in other pages to use the new title.', default: false })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  rewriteLinks?: boolean;
}

export class ListPagesQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(200) cluster?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(200) tag?: string;
  @ApiPropertyOptional({ minimum: 1, default: 1 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(100000) page?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 50 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(500) perPage?: number;
  @ApiPropertyOptional({ enum: ['title', 'updated'], default: 'title' }) @IsOptional() @IsIn(['title', 'updated']) sort?: 'title' | 'updated';
}

export class DiffQueryDto {
  @ApiProperty({ minimum: 1 }) @Transform(toNumber) @IsInt() @Min(1) @Max(MAX_VERSION) from: number;
  @ApiProperty({ minimum: 1 }) @Transform(toNumber) @IsInt() @Min(1) @Max(MAX_VERSION) to: number;
}

export class GraphQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 2, default: 1 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(2) hops?: number;
}

export class PagingQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(100000) page?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 50 }) @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(500) perPage?: number;
}

export class PreviewDto {
  @ApiProperty() @IsString() @MaxLength(MAX_BODY_CHARS) body: string;
}
