import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ROLES, type Role } from '../actor.js';
import { SERVICE_ACCOUNT_HANDLE } from '../users.service.js';
import { MAX_DISPLAY_NAME_LENGTH, UserResponse } from './users.dto.js';

const trimLower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateServiceAccountDto {
  @ApiProperty({ example: 'ci-bot', description: "Its handle: 2 to 64 lower-case letters, digits, '.', '_' or '-'. Unique among all accounts." })
  @Transform(trimLower)
  @IsString()
  @Matches(SERVICE_ACCOUNT_HANDLE, { message: "name must be 2 to 64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit" })
  name: string;

  @ApiProperty({ enum: ROLES, description: 'The most its tokens may do.' })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;

  @ApiPropertyOptional({ example: 'Nightly import from the docs repository', maxLength: MAX_DISPLAY_NAME_LENGTH })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(MAX_DISPLAY_NAME_LENGTH)
  description?: string;
}

export class ServiceAccountListResponse {
  @ApiProperty({ type: [UserResponse] }) items: UserResponse[];
}
