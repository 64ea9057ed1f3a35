import { Transform } from 'class-transformer';
import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../password-hasher.js';
import { MAX_DISPLAY_NAME_LENGTH } from './users.dto.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** The one-time /setup form. */
export class SetupFormDto {
  @IsString()
  @MinLength(1, { message: 'enter the setup code from the server log' })
  @MaxLength(100)
  code: string;

  @Transform(trim)
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email: string;

  @Transform(trim)
  @IsString()
  @MinLength(1, { message: 'enter a display name' })
  @MaxLength(MAX_DISPLAY_NAME_LENGTH)
  displayName: string;

  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH, { message: `the password must be at least ${MIN_PASSWORD_LENGTH} characters long` })
  @MaxLength(MAX_PASSWORD_LENGTH)
  password: string;

  @IsString()
  passwordConfirm: string;
}
