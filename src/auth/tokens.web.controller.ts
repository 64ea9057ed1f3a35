import { Body, Controller, Get, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { fieldText, readForm } from '../web/forms.js';
import { Access } from './access.decorator.js';
import { roleAtLeast } from './actor.js';
import { TOKEN_SCOPES } from './api-token.entity.js';
import { ApiTokensService, scopeCeiling } from './api-tokens.service.js';
import { CreateTokenDto, tokenResponse } from './dto/tokens.dto.js';
import { Origin } from './request-origin.decorator.js';
import type { RequestOrigin } from './users.service.js';

/** /account/tokens: your personal API tokens (for bin/kurate, scripts and MCP clients). */
@ApiExcludeController()
@Controller('account/tokens')
@Access('user')
export class TokensWebController {
  constructor(private readonly tokens: ApiTokensService) {}

  @Get()
  async list(@Query('notice') notice: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    await this.render(res, 200, origin, { notice: notice === 'revoked' ? 'Token revoked: it no longer works.' : null });
  }

  @Post()
  async create(@Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const scope = fieldText(form, 'scope');
    const expiresOn = fieldText(form, 'expiresOn');
    const input = readForm(CreateTokenDto, {
      name: fieldText(form, 'name'),
      scopes: [scope || 'read'],
      ...(expiresOn ? { expiresAt: `${expiresOn}T23:59:59Z` } : {}),
    });
    if (!input.ok) return this.render(res, 400, origin, { error: input.message });
    try {
      const { token, entity } = await this.tokens.create(input.value, origin);
      await this.render(res, 201, origin, { created: { token, name: entity.name } });
    } catch (error) {
      if (!(error instanceof DomainException) || ![DomainErrorCode.InvalidInput, DomainErrorCode.Forbidden].includes(error.code)) throw error;
      await this.render(res, error.code === DomainErrorCode.Forbidden ? 403 : 400, origin, { error: error.message });
    }
  }

  @Post(':id/revoke')
  async revoke(@Param('id', new ParseUUIDPipe()) id: string, @Origin() origin: RequestOrigin, @Res() res: Response) {
    await this.tokens.revoke(id, origin);
    res.redirect(303, '/account/tokens?notice=revoked');
  }

  private async render(res: Response, status: number, origin: RequestOrigin, extra: { notice?: string | null; error?: string; created?: { token: string; name: string } }) {
    const items = (await this.tokens.list(origin.actor)).map(tokenResponse);
    res.status(status).render('auth/tokens', {
      title: 'API tokens',
      notice: extra.notice ?? null,
      error: extra.error ?? null,
      created: extra.created ?? null,
      tokens: items.map((t) => ({ ...t, active: t.status === 'active', scopes: t.scopes.join(', ') })),
      scopes: TOKEN_SCOPES.filter((s) => (s === 'metrics' ? origin.actor.role === 'admin' : roleAtLeast(origin.actor.role, scopeCeiling([s])))),
    });
  }
}
