import { Body, Controller, Post, Res, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiTags, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Throttle, ThrottlerGuard } from '@nestjs/throttler';
import type { Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { Access } from './access.decorator.js';
import { ApiTokensService } from './api-tokens.service.js';
import { LoginTokenDto } from './dto/login-token.dto.js';
import { CreatedTokenResponse, tokenResponse } from './dto/tokens.dto.js';
import { LOGIN_THROTTLE } from './login-throttle.js';
import { LoginService } from './login.service.js';
import { Origin } from './request-origin.decorator.js';
import type { RequestOrigin } from './users.service.js';

/** POST /api/auth/login-token: what `kurate login` calls. The same throttle and lockout as the login form. */
@ApiTags('tokens')
@Controller('api/auth')
export class LoginTokenApiController {
  constructor(
    private readonly login: LoginService,
    private readonly tokens: ApiTokensService,
  ) {}

  @Post('login-token')
  @Access('public')
  @UseGuards(ThrottlerGuard)
  @Throttle(LOGIN_THROTTLE)
  @ApiOperation({ summary: 'Creates a personal API token from an email and a password (for the CLI); the response holds the token, shown this once' })
  @ApiCreatedResponse({ type: CreatedTokenResponse })
  @ApiUnauthorizedResponse({ description: 'Email or password is wrong (the same answer for an unknown email).' })
  @ApiTooManyRequestsResponse({ description: 'Too many failures: from this address (a minute), or for this account (locked, with Retry-After).' })
  async create(@Body() dto: LoginTokenDto, @Origin() origin: RequestOrigin, @Res({ passthrough: true }) response: Response): Promise<CreatedTokenResponse> {
    try {
      const user = await this.login.authenticate(dto.email, dto.password);
      const { token, entity } = await this.tokens.createAtLogin(user, { name: dto.name, scopes: dto.scopes, expiresAt: dto.expiresAt }, origin.ip);
      try {
        await this.login.confirm(user);
      } catch (error) {
        // The password was reset, or the account disabled, while it was checked: the token it made is revoked.
        await this.tokens.revoke(entity.id, { actor: { userId: user.id, name: user.displayName, role: user.role, via: 'session' }, ip: origin.ip });
        throw error;
      }
      return { ...tokenResponse(entity), token };
    } catch (error) {
      const retryAfter = error instanceof DomainException && error.code === DomainErrorCode.AccountLocked ? error.details.retryAfterSeconds : undefined;
      if (typeof retryAfter === 'number') response.setHeader('Retry-After', String(retryAfter));
      throw error;
    }
  }
}
