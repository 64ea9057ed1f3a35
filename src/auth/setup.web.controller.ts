import { Body, Controller, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Throttle, ThrottlerGuard } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { fieldText, readForm } from '../web/forms.js';
import { Access } from './access.decorator.js';
import { csrfTokenFor } from './csrf.js';
import { SetupFormDto } from './dto/setup.dto.js';
import { LOGIN_THROTTLE } from './login-throttle.js';
import { requireSession, startSession } from './session-helpers.js';
import { setupGone, SetupService } from './setup.service.js';

/** /setup: while no admin exists, whoever has the code from the server log creates the first admin. Then 404. */
@ApiExcludeController()
@Controller('setup')
export class SetupWebController {
  constructor(private readonly setup: SetupService) {}

  @Get()
  @Access('public')
  async form(@Req() request: Request, @Res() response: Response) {
    if (!(await this.setup.isOpen())) throw setupGone();
    response.render('setup', setupModel(request, { email: '', displayName: '' }));
  }

  @Post()
  @Access('public')
  @UseGuards(ThrottlerGuard)
  @Throttle(LOGIN_THROTTLE)
  async submit(@Body() form: unknown, @Req() request: Request, @Res() response: Response) {
    requireSession(request);
    if (!(await this.setup.isOpen())) throw setupGone();
    const typed = { email: fieldText(form, 'email').slice(0, 320), displayName: fieldText(form, 'displayName').slice(0, 200) };
    const input = readForm(SetupFormDto, form);
    if (!input.ok) return response.status(400).render('setup', setupModel(request, typed, input.message));
    if (input.value.password !== input.value.passwordConfirm) {
      return response.status(400).render('setup', setupModel(request, typed, 'The two passwords differ.'));
    }
    try {
      const { code, email, displayName, password } = input.value;
      const admin = await this.setup.complete(code, { email, displayName, password }, request.ip ?? null);
      await startSession(request, admin);
      response.redirect(303, '/admin/users?notice=welcome');
    } catch (error) {
      if (!(error instanceof DomainException) || error.code === DomainErrorCode.NotFound) throw error;
      const status = error.code === DomainErrorCode.Forbidden ? 403 : error.code === DomainErrorCode.EmailTaken ? 409 : 400;
      response.status(status).render('setup', setupModel(request, typed, error.message));
    }
  }
}

function setupModel(request: Request, form: { email: string; displayName: string }, error: string | null = null) {
  return { title: 'Set up Kurate', csrfToken: csrfTokenFor(request), form, error };
}
