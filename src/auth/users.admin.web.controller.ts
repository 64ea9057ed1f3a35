import { Body, Controller, Get, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { fieldText, readForm } from '../web/forms.js';
import { pager } from '../web/pager.js';
import { Access } from './access.decorator.js';
import { ROLES } from './actor.js';
import { CreateUserDto, ResetPasswordDto, SetRoleDto, UsersPageQueryDto } from './dto/users.dto.js';
import { Origin } from './request-origin.decorator.js';
import { UsersService, type RequestOrigin } from './users.service.js';
import { noticeOf } from '../web/notices.js';

const USERS_PER_PAGE = 100;
const NOTICES: Record<string, string> = {
  welcome: 'Welcome! You are the admin of this wiki. Create accounts for the others here.',
  created: 'User created.',
  role: 'Role changed.',
  disabled: 'User disabled: their sessions ended and their API tokens stopped working.',
  enabled: 'User enabled.',
  password: 'Password reset: their sessions ended; they log in with the new password.',
};
const ERROR_STATUS: Partial<Record<DomainErrorCode, number>> = {
  [DomainErrorCode.InvalidInput]: 400,
  [DomainErrorCode.EmailTaken]: 409,
  [DomainErrorCode.LastAdmin]: 409,
  [DomainErrorCode.NotFound]: 404,
};

/** /admin/users: list users, create them, change roles, disable/enable, reset passwords. Plain forms. */
@ApiExcludeController()
@Controller('admin/users')
@Access('admin')
export class UsersAdminWebController {
  constructor(private readonly users: UsersService) {}

  @Get()
  async list(@Query() query: UsersPageQueryDto, @Res() res: Response) {
    await this.render(res, 200, query.page ?? 1, { notice: noticeOf(NOTICES, query.notice) });
  }

  @Post()
  async create(@Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const typed = { email: fieldText(form, 'email').slice(0, 320), displayName: fieldText(form, 'displayName').slice(0, 200), role: fieldText(form, 'role') };
    const input = readForm(CreateUserDto, form);
    if (!input.ok) return this.render(res, 400, 1, { error: input.message, typed });
    await this.act(res, 'created', () => this.users.create(input.value, origin), typed);
  }

  @Post(':id/role')
  async setRole(@Param('id', new ParseUUIDPipe()) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const input = readForm(SetRoleDto, form);
    if (!input.ok) return this.render(res, 400, 1, { error: input.message });
    await this.act(res, 'role', () => this.users.setRole(id, input.value.role, origin));
  }

  @Post(':id/disable')
  async disable(@Param('id', new ParseUUIDPipe()) id: string, @Origin() origin: RequestOrigin, @Res() res: Response) {
    await this.act(res, 'disabled', () => this.users.setDisabled(id, true, origin));
  }

  @Post(':id/enable')
  async enable(@Param('id', new ParseUUIDPipe()) id: string, @Origin() origin: RequestOrigin, @Res() res: Response) {
    await this.act(res, 'enabled', () => this.users.setDisabled(id, false, origin));
  }

  @Post(':id/password')
  async resetPassword(@Param('id', new ParseUUIDPipe()) id: string, @Body() form: unknown, @Origin() origin: RequestOrigin, @Res() res: Response) {
    const input = readForm(ResetPasswordDto, form);
    if (!input.ok) return this.render(res, 400, 1, { error: input.message });
    await this.act(res, 'password', () => this.users.resetPassword(id, input.value.password, origin));
  }

  private async act(res: Response, notice: string, work: () => Promise<unknown>, typed?: Record<string, string>): Promise<void> {
    try {
      await work();
      res.redirect(303, `/admin/users?notice=${notice}`);
    } catch (error) {
      const status = error instanceof DomainException ? ERROR_STATUS[error.code] : undefined;
      if (!status) throw error;
      await this.render(res, status, 1, { error: (error as Error).message, typed });
    }
  }

  private async render(res: Response, status: number, page: number, extra: { notice?: string | null; error?: string; typed?: Record<string, string> }) {
    const [items, total] = await this.users.list(USERS_PER_PAGE, (page - 1) * USERS_PER_PAGE);
    const typedRole = extra.typed?.role ?? 'reader';
    res.status(status).render('admin/users', {
      title: 'Users',
      notice: extra.notice ?? null,
      error: extra.error ?? null,
      typed: { email: '', displayName: '', ...extra.typed },
      newUserRoles: ROLES.map((role) => ({ role, selected: role === typedRole })),
      users: items.map((u) => ({
        id: u.id,
        email: u.email,
        displayName: u.displayName,
        role: u.role,
        service: u.kind === 'service',
        disabled: u.disabledAt !== null,
        createdAt: u.createdAt,
        lastLoginAt: u.lastLoginAt,
        roles: ROLES.map((role) => ({ role, selected: role === u.role })),
      })),
      total,
      pager: pager('/admin/users', {}, page, USERS_PER_PAGE, total),
    });
  }
}
