import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class EntityPageQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1, description: 'Which page of the list of pages that mention the entity.' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100000) page?: number;
}
