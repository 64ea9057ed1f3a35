import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { toNumber } from '../../common/dto-transforms.js';
import { ROLES, type Role } from '../actor.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../password-hasher.js';
import { USER_KINDS, type UserEntity, type UserKind } from '../user.entity.js';

export const MAX_DISPLAY_NAME_LENGTH = 100;
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateUserDto {
  @ApiProperty({ example: 'ada@example.org', description: 'Unique, case-insensitively.' })
  @Transform(trim)
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email: string;

  @ApiProperty({ example: 'Ada Lovelace', maxLength: MAX_DISPLAY_NAME_LENGTH, description: 'Shown as the author of revisions.' })
  @Transform(trim)
  @IsString()
  @MinLength(1, { message: 'displayName must not be empty' })
  @MaxLength(MAX_DISPLAY_NAME_LENGTH)
  displayName: string;

  @ApiProperty({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH })
  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH, { message: `password must be at least ${MIN_PASSWORD_LENGTH} characters long` })
  @MaxLength(MAX_PASSWORD_LENGTH)
  password: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;
}

export class SetRoleDto {
  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;
}

export class ResetPasswordDto {
  @ApiProperty({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH, description: "The user's new password; their open sessions end." })
  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH, { message: `password must be at least ${MIN_PASSWORD_LENGTH} characters long` })
  @MaxLength(MAX_PASSWORD_LENGTH)
  password: string;
}

export class ListUsersQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100_000)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 100 })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(500)
  perPage?: number;
}

/** /admin/users: paging, and the notice after a change. */
export class UsersPageQueryDto extends ListUsersQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(50)
  notice?: string;
}

export class UserResponse {
  @ApiProperty() id: string;
  @ApiProperty() email: string;
  @ApiProperty() displayName: string;
  @ApiProperty({ enum: ROLES }) role: Role;
  @ApiProperty({ enum: USER_KINDS, description: '`service`: a service account, which has no password and acts only through its tokens.' }) kind: UserKind;
  @ApiProperty() disabled: boolean;
  @ApiProperty({ nullable: true, type: Date }) disabledAt: Date | null;
  @ApiProperty() createdAt: Date;
  @ApiProperty({ nullable: true, type: Date }) lastLoginAt: Date | null;
}

export class UserListResponse {
  @ApiProperty({ type: [UserResponse] }) items: UserResponse[];
  @ApiProperty() total: number;
  @ApiProperty() page: number;
  @ApiProperty() perPage: number;
}

export function userResponse(u: UserEntity): UserResponse {
  return {
    id: u.id,
    email: u.email,
    displayName: u.displayName,
    role: u.role,
    kind: u.kind,
    disabled: u.disabledAt !== null,
    disabledAt: u.disabledAt,
    createdAt: u.createdAt,
    lastLoginAt: u.lastLoginAt,
  };
}
