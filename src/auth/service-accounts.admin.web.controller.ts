import { Body, Controller, Get, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { fieldText, readForm } from '../web/forms.js';
import { Access } from './access.decorator.js';
import { ROLES, roleAtLeast } from './actor.js';
import { TOKEN_SCOPES } from './api-token.entity.js';
import { ApiTokensService, scopeCeiling } from './api-tokens.service.js';
import { CreateServiceAccountDto } from './dto/service-accounts.dto.js';
import { CreateTokenDto, tokenResponse } from './dto/tokens.dto.js';
import { Origin } from './request-origin.decorator.js';
import { UsersService, type RequestOrigin } from './users.service.js';
import { noticeOf } from '../web/notices.js';

const NOTICES: Record<string, string> = {
  created: 'Service account created. Make it a token below.',
  revoked: 'Token revoked: it no longer works.',
};
const ERROR_STATUS: Partial<Record<DomainErrorCode, number>> = {
  [DomainErrorCode.InvalidInput]: 400,
  [DomainErrorCode.EmailTaken]: 409,
  [DomainErrorCode.NotFound]: 404,
};

interface Extra {
  notice?: string | null;
  error?: string;
  typed?: Record<string, string>;
  created?: { token: string; name: string; account: string };
}

/** /admin/service-accounts: accounts without a password, and the scoped, expiring tokens admins make for them. */
@ApiExcludeController()
@Controller('admin/service-accounts')
@Access('admin')
export class ServiceAccountsAdminWebController {
  constructor(
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
  ) {}

  @Get()
  async list(@Query('notice') notice: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    await this.render(res, 200, origin, { notice: noticeOf(NOTICES, notice) });
  }

  @Post()
  async create(@Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const typed = { name: fieldText(form, 'name').slice(0, 100), description: fieldText(form, 'description').slice(0, 200), role: fieldText(form, 'role') };
    const input = readForm(CreateServiceAccountDto, form);
    if (!input.ok) return this.render(res, 400, origin, { error: input.message, typed });
    try {
      await this.users.createServiceAccount({ handle: input.value.name, role: input.value.role, description: input.value.description }, origin);
      res.redirect(303, '/admin/service-accounts?notice=created');
    } catch (error) {
      await this.refused(res, origin, error, typed);
    }
  }

  @Post(':id/tokens')
  async createToken(@Param('id', new ParseUUIDPipe()) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const expiresOn = fieldText(form, 'expiresOn');
    const input = readForm(CreateTokenDto, {
      name: fieldText(form, 'name'),
      scopes: [fieldText(form, 'scope') || 'read'],
      ...(expiresOn ? { expiresAt: `${expiresOn}T23:59:59Z` } : {}),
    });
    if (!input.ok) return this.render(res, 400, origin, { error: input.message });
    try {
      const account = await this.users.getServiceAccount(id);
      const { token, entity } = await this.tokens.createForServiceAccount(account, input.value, origin);
      await this.render(res, 201, origin, { created: { token, name: entity.name, account: account.email } });
    } catch (error) {
      await this.refused(res, origin, error);
    }
  }

  @Post('tokens/:tokenId/revoke')
  async revoke(@Param('tokenId', new ParseUUIDPipe()) tokenId: string, @Origin() origin: RequestOrigin, @Res() res: Response) {
    await this.tokens.revoke(tokenId, origin);
    res.redirect(303, '/admin/service-accounts?notice=revoked');
  }

  private async refused(res: Response, origin: RequestOrigin, error: unknown, typed?: Record<string, string>): Promise<void> {
    const status = error instanceof DomainException ? ERROR_STATUS[error.code] : undefined;
    if (!status) throw error;
    await this.render(res, status, origin, { error: (error as Error).message, typed });
  }

  private async render(res: Response, status: number, origin: RequestOrigin, extra: Extra) {
    const accounts = await this.users.listServiceAccounts();
    const typedRole = extra.typed?.role ?? 'reader';
    const rows = await Promise.all(
      accounts.map(async (account) => ({
        id: account.id,
        name: account.email,
        description: account.displayName,
        role: account.role,
        disabled: account.disabledAt !== null,
        scopes: TOKEN_SCOPES.filter((s) => roleAtLeast(account.role, scopeCeiling([s]))),
        tokens: (await this.tokens.list(origin.actor, { userId: account.id })).map(tokenResponse).map((t) => ({ ...t, active: t.status === 'active', scopes: t.scopes.join(', ') })),
      })),
    );
    res.status(status).render('admin/service-accounts', {
      title: 'Service accounts',
      notice: extra.notice ?? null,
      error: extra.error ?? null,
      created: extra.created ?? null,
      typed: { name: '', description: '', ...extra.typed },
      roles: ROLES.map((role) => ({ role, selected: role === typedRole })),
      accounts: rows,
    });
  }
}
