import { Inject, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { EmbeddedPostgresModule } from '../db/database.module.js';
import { AccessGuard } from './access.guard.js';
import { ApiTokenEntity } from './api-token.entity.js';
import { ApiTokensRepository } from './api-tokens.repository.js';
import { ApiTokensService } from './api-tokens.service.js';
import { IdentityMiddleware } from './identity.middleware.js';
import { LoginAttemptEntity } from './login-attempt.entity.js';
import { LoginAttemptsRepository } from './login-attempts.repository.js';
import { LOGIN_THROTTLER, THROTTLED_MESSAGE } from './login-throttle.js';
import { LoginTokenApiController } from './login-token.api.controller.js';
import { LoginWebController } from './login.web.controller.js';
import { LoginService } from './login.service.js';
import { PasswordHasher } from './password-hasher.js';
import { ServerSecretEntity } from './server-secret.entity.js';
import { ServiceAccountsAdminApiController } from './service-accounts.admin.api.controller.js';
import { ServiceAccountsAdminWebController } from './service-accounts.admin.web.controller.js';
import { ServerSecretsRepository } from './server-secrets.repository.js';
import { SessionEntity } from './session.entity.js';
import { sessionMiddlewareProvider, sessionStoreProvider } from './session.middleware.js';
import { SessionsRepository } from './sessions.repository.js';
import { SetupService } from './setup.service.js';
import { SetupWebController } from './setup.web.controller.js';
import { TokensApiController } from './tokens.api.controller.js';
import { TokensWebController } from './tokens.web.controller.js';
import { UserEntity } from './user.entity.js';
import { UsersAdminApiController } from './users.admin.api.controller.js';
import { UsersAdminWebController } from './users.admin.web.controller.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

const HOURLY = 60 * 60 * 1000;

/**
 * Accounts, sessions, API tokens, the first admin, and the guard that closes every route that does not declare
 * @Access. The request pipeline (session → identity → CSRF) is installed by useAuthentication() in app.setup.ts.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([UserEntity, SessionEntity, ApiTokenEntity, LoginAttemptEntity, ServerSecretEntity]),
    ThrottlerModule.forRoot({ throttlers: [LOGIN_THROTTLER], errorMessage: THROTTLED_MESSAGE }),
    AuditModule,
    EmbeddedPostgresModule,
  ],
  controllers: [
    LoginWebController,
    LoginTokenApiController,
    SetupWebController,
    TokensApiController,
    TokensWebController,
    UsersAdminApiController,
    UsersAdminWebController,
    ServiceAccountsAdminApiController,
    ServiceAccountsAdminWebController,
  ],
  providers: [
    { provide: APP_GUARD, useClass: AccessGuard },
    PasswordHasher,
    UsersRepository,
    UsersService,
    SessionsRepository,
    LoginAttemptsRepository,
    LoginService,
    ApiTokensRepository,
    ApiTokensService,
    ServerSecretsRepository,
    SetupService,
    IdentityMiddleware,
    sessionStoreProvider,
    sessionMiddlewareProvider,
  ],
  exports: [UsersService, ApiTokensService, IdentityMiddleware, sessionMiddlewareProvider, AuditModule],
})
export class AuthModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Auth');
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    @Inject(SessionsRepository) private readonly sessions: SessionsRepository,
    @Inject(LoginAttemptsRepository) private readonly attempts: LoginAttemptsRepository,
    @Inject(LoginService) private readonly login: LoginService,
  ) {}

  onApplicationBootstrap(): void {
    void this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), HOURLY);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Expired sessions and forgotten login failures go; nothing depends on it running on time. */
  private async sweep(): Promise<void> {
    try {
      await this.sessions.deleteExpired();
      await this.attempts.deleteStale(this.login.policy.forgetAfterSeconds);
    } catch (error) {
      this.logger.warn(`Could not delete expired sessions: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
