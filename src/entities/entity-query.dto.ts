import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { toNumber } from '../common/dto-transforms.js';

export class EntityPageQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1, description: 'Which page of the list of pages that mention the entity.' })
  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(100000) page?: number;
}
