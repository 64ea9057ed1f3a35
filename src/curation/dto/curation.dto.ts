import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength,
} from 'class-validator';
import { ID_PATTERN } from '../../admin/review-errors.js';
import { REVIEW_PREDICATES, REVIEW_TYPES } from '../../admin/review-vocabulary.js';
import { MAX_NAME, MAX_TEXT, MAX_REASON, trimmed, emptyAsUndefined, toBoolean, toId, toNumber, PageLimit, ID_MESSAGE } from '../../admin/dto-fields.js';

export class EntityListQueryDto {
  @ApiPropertyOptional({ description: 'Words in the name or an alias.' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ enum: REVIEW_TYPES })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(REVIEW_TYPES, { message: `type must be one of: ${REVIEW_TYPES.join(', ')}` })
  type?: string;

  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  offset?: number;
}

export class CreateEntityDto {
  @ApiProperty({ maxLength: MAX_NAME })
  @Transform(trimmed)
  @IsString({ message: 'name is required' })
  @MinLength(1, { message: 'name may not be empty' })
  @MaxLength(MAX_NAME)
  name: string;

  @ApiProperty({ enum: REVIEW_TYPES })
  @IsIn(REVIEW_TYPES, { message: `type must be one of: ${REVIEW_TYPES.join(', ')}` })
  type: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(MAX_NAME, { each: true })
  aliases?: string[];

  @ApiPropertyOptional({ maxLength: MAX_TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  description?: string;
}

export class UpdateEntityDto {
  @ApiPropertyOptional({ maxLength: MAX_NAME })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @MinLength(1, { message: 'name may not be empty' })
  @MaxLength(MAX_NAME)
  name?: string;

  @ApiPropertyOptional({ enum: REVIEW_TYPES })
  @IsOptional()
  @IsIn(REVIEW_TYPES, { message: `type must be one of: ${REVIEW_TYPES.join(', ')}` })
  type?: string;

  @ApiPropertyOptional({ type: [String], description: 'The whole list (replaces the aliases).' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(MAX_NAME, { each: true })
  aliases?: string[];

  @ApiPropertyOptional({ maxLength: MAX_TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  description?: string;
}

export class SynonymDto {
  @ApiProperty({ maxLength: MAX_NAME, description: 'Another name of the entity: a query naming it names the entity.' })
  @Transform(trimmed)
  @IsString({ message: 'name is required' })
  @MinLength(1, { message: 'name may not be empty' })
  @MaxLength(MAX_NAME)
  name: string;
}

export class DeleteEntityDto {
  @ApiPropertyOptional({ default: false, description: 'Only say what would be deleted.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'dryRun must be true or false' })
  dryRun?: boolean;

  @ApiPropertyOptional({ default: false, description: 'Also reject its signature, so that it is not proposed again.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'reject must be true or false' })
  reject?: boolean;

  @ApiPropertyOptional({ maxLength: MAX_REASON })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_REASON)
  reason?: string;
}

export class MergeEntityDto {
  @ApiProperty({ description: 'The entity that stays (this one is merged into it and goes).' })
  @Transform(toId)
  @Matches(ID_PATTERN, { message: ID_MESSAGE('intoId') })
  intoId: string;
}

export class CreateEdgeDto {
  @ApiProperty()
  @Transform(toId)
  @Matches(ID_PATTERN, { message: ID_MESSAGE('sourceId') })
  sourceId: string;

  @ApiProperty()
  @Transform(toId)
  @Matches(ID_PATTERN, { message: ID_MESSAGE('targetId') })
  targetId: string;

  @ApiProperty({ enum: REVIEW_PREDICATES })
  @IsIn(REVIEW_PREDICATES, { message: `predicate must be one of: ${REVIEW_PREDICATES.join(', ')}` })
  predicate: string;
}

export class UpdateEdgeDto {
  @ApiPropertyOptional({ enum: REVIEW_PREDICATES })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsIn(REVIEW_PREDICATES, { message: `predicate must be one of: ${REVIEW_PREDICATES.join(', ')}` })
  predicate?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'swapDirection must be true or false' })
  swapDirection?: boolean;

  @ApiPropertyOptional({ minimum: 0, maximum: 1_000_000 })
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({}, { message: 'weight must be a number' })
  @Min(0)
  @Max(1_000_000)
  weight?: number;
}

export class DeleteEdgeDto {
  @ApiPropertyOptional({ maxLength: MAX_REASON, description: 'Why (remembered with the rejection).' })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_REASON)
  reason?: string;
}
