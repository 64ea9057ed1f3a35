import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow, ArrayMaxSize, IsArray, IsBoolean, IsIn, IsNumber, IsObject, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateNested,
} from 'class-validator';
import { MAX_NAME, MAX_TEXT, MAX_REASON, emptyAsUndefined, toBoolean, toId } from '../../admin/dto-fields.js';

export class ExportQueryDto {
  @ApiPropertyOptional({ enum: ['json', 'graphml'], default: 'json' })
  @IsOptional()
  @IsIn(['json', 'graphml'], { message: 'format must be json or graphml' })
  format?: 'json' | 'graphml';
}

export class ImportNodeDto {
  @ApiProperty({ description: 'The node’s id in this file (edges refer to it).' })
  @Transform(toId)
  @IsString({ message: 'every node needs an id' })
  @MinLength(1)
  @MaxLength(200)
  id: string;

  @ApiProperty({ maxLength: MAX_NAME })
  @IsString({ message: 'every node needs a name' })
  @MaxLength(MAX_NAME)
  name: string;

  @ApiProperty({ description: 'An entity type, or a term mapped by typeMap.' })
  @IsString({ message: 'every node needs a type' })
  @MaxLength(100)
  type: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(MAX_NAME, { each: true })
  aliases?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  description?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, description: 'Pending mode: the proposal’s confidence (default 1).' })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  confidence?: number;

  // Fields of Kurate's own export, accepted and ignored, so that an export can be imported as it is.
  @Allow() signature?: unknown;
  @Allow() origin?: unknown;
  @Allow() createdBy?: unknown;
  @Allow() createdAt?: unknown;
  @Allow() updatedAt?: unknown;
  @Allow() provenance?: unknown;
}

export class ImportEdgeDto {
  @ApiProperty({ description: 'A node id of this file.' })
  @Transform(toId)
  @IsString()
  @MaxLength(200)
  source: string;

  @ApiProperty({ description: 'A node id of this file.' })
  @Transform(toId)
  @IsString()
  @MaxLength(200)
  target: string;

  @ApiProperty({ description: 'A predicate, or a term mapped by predicateMap.' })
  @IsString()
  @MaxLength(100)
  predicate: string;

  @ApiPropertyOptional({ enum: ['typed', 'co_mention'], description: 'co_mention edges are skipped (they are derived from pages).' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  kind?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1_000_000)
  weight?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  confidence?: number;

  @Allow() id?: unknown;
  @Allow() origin?: unknown;
  @Allow() createdBy?: unknown;
  @Allow() createdAt?: unknown;
  @Allow() updatedAt?: unknown;
  @Allow() provenance?: unknown;
}

export class ImportGraphDto {
  @ApiProperty({ type: [ImportNodeDto] })
  @IsArray({ message: 'graph.nodes must be a list' })
  @ArrayMaxSize(50_000)
  @IsObject({ each: true, message: '$property must be a list of objects' })
  // Each node is validated by the import itself, in batches (graph-items.ts): not here, all at once.
  nodes: ImportNodeDto[];

  @ApiPropertyOptional({ type: [ImportEdgeDto] })
  @IsOptional()
  @IsArray({ message: 'graph.edges must be a list' })
  @ArrayMaxSize(200_000)
  @IsObject({ each: true, message: '$property must be a list of objects' })
  // As the nodes: validated by the import, in batches.
  edges?: ImportEdgeDto[];

  @Allow() format?: unknown;
  @Allow() version?: unknown;
}

export class ImportDto {
  @ApiProperty({ type: ImportGraphDto, description: 'Nodes and edges; Kurate’s own export is accepted as it is.' })
  @IsObject({ message: 'graph must be an object with nodes (and edges)' })
  @ValidateNested()
  @Type(() => ImportGraphDto)
  graph: ImportGraphDto;

  @ApiProperty({ enum: ['pending', 'approved'], description: 'pending: proposals for the queue; approved: entities and edges at once (reason required).' })
  @IsIn(['pending', 'approved'], { message: 'mode must be pending or approved' })
  mode: 'pending' | 'approved';

  @ApiPropertyOptional({ maxLength: MAX_REASON })
  @IsOptional()
  @Transform(emptyAsUndefined)
  @IsString()
  @MaxLength(MAX_REASON)
  reason?: string;

  @ApiPropertyOptional({ example: { framework: 'technology' }, description: 'Unknown types mapped onto the vocabulary.' })
  @IsOptional()
  @IsObject({ message: 'typeMap must be an object' })
  typeMap?: Record<string, string>;

  @ApiPropertyOptional({ example: { depends_on: 'requires' } })
  @IsOptional()
  @IsObject({ message: 'predicateMap must be an object' })
  predicateMap?: Record<string, string>;

  @ApiPropertyOptional({ default: false, description: 'Validate and report only.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'dryRun must be true or false' })
  dryRun?: boolean;
}
