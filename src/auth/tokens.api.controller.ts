import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from './access.decorator.js';
import { ApiTokensService } from './api-tokens.service.js';
import { CreatedTokenResponse, CreateTokenDto, ListTokensQueryDto, TokenListResponse, tokenResponse } from './dto/tokens.dto.js';
import { Origin } from './request-origin.decorator.js';
import type { RequestOrigin } from './users.service.js';

@ApiTags('tokens')
@ApiBearerAuth()
@Controller('api/tokens')
@Access('user')
export class TokensApiController {
  constructor(private readonly tokens: ApiTokensService) {}

  @Post()
  @ApiOperation({ summary: 'Creates a personal API token; the response holds the token, shown this once' })
  @ApiCreatedResponse({ type: CreatedTokenResponse })
  async create(@Body() dto: CreateTokenDto, @Origin() origin: RequestOrigin): Promise<CreatedTokenResponse> {
    const { token, entity } = await this.tokens.create(dto, origin);
    return { ...tokenResponse(entity), token };
  }

  @Get()
  @ApiOperation({ summary: "Your tokens (never the tokens themselves); an admin may list one user's or everyone's" })
  @ApiOkResponse({ type: TokenListResponse })
  async list(@Query() query: ListTokensQueryDto, @Origin() origin: RequestOrigin): Promise<TokenListResponse> {
    return { items: (await this.tokens.list(origin.actor, query)).map(tokenResponse) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revokes a token at once (yours; an admin: anyone’s)' })
  @ApiNoContentResponse()
  async revoke(@Param('id', new ParseUUIDPipe()) id: string, @Origin() origin: RequestOrigin): Promise<void> {
    await this.tokens.revoke(id, origin);
  }
}
