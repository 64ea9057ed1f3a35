import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class SearchQueryDto {
  @ApiPropertyOptional({ description: 'Words or a question (any word may match); "quoted phrases" group words and -word excludes.', maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  q?: string;

  @ApiPropertyOptional({ minimum: 1, default: 1 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000) page?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) perPage?: number;

  @ApiPropertyOptional({ description: 'Adds `explain` to each hit: its source, rank, matched terms and what each term added.', enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'explain must be true or false' })
  explain?: 'true' | 'false';
}

export class SearchSuggestQueryDto {
  @ApiPropertyOptional({ description: 'What the reader has typed so far.', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 20, default: 8 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(20) limit?: number;
}

