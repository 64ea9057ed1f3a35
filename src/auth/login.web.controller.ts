import { Body, Controller, Get, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Throttle, ThrottlerGuard } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { fieldText } from '../web/forms.js';
import { Access } from './access.decorator.js';
import type { RequestWithActor } from './current-actor.decorator.js';
import { csrfTokenFor } from './csrf.js';
import { LOGIN_THROTTLE } from './login-throttle.js';
import { LoginService, WRONG_CREDENTIALS } from './login.service.js';
import { MAX_PASSWORD_LENGTH } from './password-hasher.js';
import { dropLogin, endSession, requireSession, safeNext, startSession } from './session-helpers.js';

const STATUS_BY_CODE: Partial<Record<DomainErrorCode, number>> = {
  [DomainErrorCode.InvalidCredentials]: 401,
  [DomainErrorCode.AccountLocked]: 429,
  [DomainErrorCode.Forbidden]: 403,
};

/** GET/POST /login and POST /logout: plain forms; API clients use tokens instead. */
@ApiExcludeController()
@Controller()
export class LoginWebController {
  constructor(private readonly login: LoginService) {}

  @Get('login')
  @Access('public')
  form(@Query('next') next: unknown, @Req() request: RequestWithActor, @Res() response: Response) {
    const target = safeNext(next);
    if (request.actor?.userId) return response.redirect(303, target);
    response.render('auth/login', loginModel(request, { email: '', next: target }));
  }

  @Post('login')
  @Access('public')
  @UseGuards(ThrottlerGuard)
  @Throttle(LOGIN_THROTTLE)
  async submit(@Body() form: unknown, @Req() request: Request, @Res() response: Response) {
    requireSession(request);
    const email = fieldText(form, 'email').trim().slice(0, 320);
    const password = fieldText(form, 'password');
    const next = safeNext(fieldText(form, 'next'));
    if (!email || !password) {
      return response.status(400).render('auth/login', loginModel(request, { email, next, error: 'Enter your email and your password.' }));
    }
    try {
      if (password.length > MAX_PASSWORD_LENGTH) throw new DomainException(DomainErrorCode.InvalidCredentials, WRONG_CREDENTIALS);
      const user = await this.login.authenticate(email, password);
      await startSession(request, user);
      try {
        await this.login.confirm(user);
      } catch (error) {
        // A password reset or a disable committed while the password was checked: this session must not outlive it.
        await dropLogin(request);
        throw error;
      }
      response.redirect(303, next);
    } catch (error) {
      const status = error instanceof DomainException ? STATUS_BY_CODE[error.code] : undefined;
      if (!status) throw error;
      const retryAfter = (error as DomainException).details.retryAfterSeconds;
      if (typeof retryAfter === 'number') response.setHeader('Retry-After', String(retryAfter));
      response.status(status).render('auth/login', loginModel(request, { email, next, error: (error as Error).message }));
    }
  }

  @Post('logout')
  @Access('public')
  async logout(@Req() request: Request, @Res() response: Response) {
    await endSession(request, response);
    response.redirect(303, '/');
  }
}

function loginModel(request: Request, form: { email: string; next: string; error?: string }) {
  return { title: 'Log in', csrfToken: csrfTokenFor(request), form, error: form.error ?? null };
}
