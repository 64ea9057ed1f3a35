import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { MAX_PASSWORD_LENGTH } from '../password-hasher.js';
import { CreateTokenDto } from './tokens.dto.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** `kurate login`: an email and a password for a new personal token (name, scopes and expiry as POST /api/tokens). */
export class LoginTokenDto extends CreateTokenDto {
  @ApiProperty({ example: 'ada@example.org' })
  @Transform(trim)
  @IsString()
  @MinLength(1, { message: 'email must not be empty' })
  @MaxLength(320)
  email: string;

  @ApiProperty({ maxLength: MAX_PASSWORD_LENGTH, description: 'The account’s password; failures count towards its lockout, as on the login form.' })
  @IsString()
  @MinLength(1, { message: 'password must not be empty' })
  @MaxLength(MAX_PASSWORD_LENGTH)
  password: string;
}
