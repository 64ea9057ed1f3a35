import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from './access.decorator.js';
import { ApiTokensService } from './api-tokens.service.js';
import { CreateServiceAccountDto, ServiceAccountListResponse } from './dto/service-accounts.dto.js';
import { CreatedTokenResponse, CreateTokenDto, TokenListResponse, tokenResponse } from './dto/tokens.dto.js';
import { UserResponse, userResponse } from './dto/users.dto.js';
import { Origin } from './request-origin.decorator.js';
import { UsersService, type RequestOrigin } from './users.service.js';

/**
 * Service accounts: users without a password, acting only through tokens an admin makes for them. They are users
 * like any other for roles and disabling (/api/admin/users/:id/…), and their tokens are revoked with DELETE /api/tokens/:id.
 */
@ApiTags('admin')
@ApiBearerAuth()
@Controller('api/admin/service-accounts')
@Access('admin')
export class ServiceAccountsAdminApiController {
  constructor(
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
  ) {}

  @Get()
  @ApiOkResponse({ type: ServiceAccountListResponse })
  async list(): Promise<ServiceAccountListResponse> {
    return { items: (await this.users.listServiceAccounts()).map(userResponse) };
  }

  @Post()
  @ApiOperation({ summary: 'Creates a service account (no password: it acts only through its tokens)' })
  @ApiCreatedResponse({ type: UserResponse })
  @ApiConflictResponse({ description: 'An account with this name exists.' })
  async create(@Body() dto: CreateServiceAccountDto, @Origin() origin: RequestOrigin): Promise<UserResponse> {
    return userResponse(await this.users.createServiceAccount({ handle: dto.name, role: dto.role, description: dto.description }, origin));
  }

  @Get(':account')
  @ApiOkResponse({ type: UserResponse })
  async get(@Param('account') ref: string): Promise<UserResponse> {
    return userResponse(await this.users.getServiceAccount(ref));
  }

  @Get(':account/tokens')
  @ApiOperation({ summary: "A service account's tokens, with their status (active, expired, revoked)" })
  @ApiOkResponse({ type: TokenListResponse })
  async tokensOf(@Param('account') ref: string, @Origin() origin: RequestOrigin): Promise<TokenListResponse> {
    const account = await this.users.getServiceAccount(ref);
    return { items: (await this.tokens.list(origin.actor, { userId: account.id })).map(tokenResponse) };
  }

  @Post(':account/tokens')
  @ApiOperation({ summary: 'Creates a token for a service account (scoped, optionally expiring); the response holds the token, shown this once' })
  @ApiCreatedResponse({ type: CreatedTokenResponse })
  async createToken(@Param('account') ref: string, @Body() dto: CreateTokenDto, @Origin() origin: RequestOrigin): Promise<CreatedTokenResponse> {
    const account = await this.users.getServiceAccount(ref);
    const { token, entity } = await this.tokens.createForServiceAccount(account, dto, origin);
    return { ...tokenResponse(entity), token };
  }
}
