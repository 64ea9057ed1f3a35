import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { AdminTools } from './admin-tools.js';
import { KnowledgeTools } from './knowledge-tools.js';
import { answerMcpRequest, baseUrlOf } from './mcp-http.js';

/** GET (an event stream) and DELETE (end a session): neither exists on a stateless server. */
function stateless(response: Response) {
  response.setHeader('Allow', 'POST');
  return {
    jsonrpc: '2.0',
    error: { code: -32000, message: 'Method not allowed: this MCP server is stateless (no event stream, no session); send JSON-RPC with POST.' },
    id: null,
  };
}

/**
 * The MCP servers for agents, over Streamable HTTP (docs/mcp.md): /knowledge-mcp (read-only, what a reader may
 * read) and /admin-mcp (curation, admin tokens only). GET and DELETE are answered 405: there are no sessions.
 */
@ApiTags('mcp')
@ApiBearerAuth()
@Controller()
export class McpController {
  constructor(
    private readonly knowledge: KnowledgeTools,
    private readonly admin: AdminTools,
  ) {}

  @Post('knowledge-mcp')
  @Access('read')
  @ApiOperation({ summary: 'The read-only knowledge MCP server (JSON-RPC over Streamable HTTP)' })
  knowledgeMcp(@Req() request: Request, @Res() response: Response): Promise<void> {
    return answerMcpRequest(request, response, this.knowledge.server(baseUrlOf(request)));
  }

  @Post('admin-mcp')
  @Access('admin')
  @ApiOperation({ summary: 'The admin curation MCP server (JSON-RPC over Streamable HTTP); admin tokens only' })
  adminMcp(@Req() request: Request, @Res() response: Response, @Origin() origin: RequestOrigin): Promise<void> {
    return answerMcpRequest(request, response, this.admin.server(baseUrlOf(request), origin));
  }

  @Get('knowledge-mcp')
  @Access('read')
  @HttpCode(405)
  @ApiExcludeEndpoint()
  knowledgeStream(@Res({ passthrough: true }) response: Response) {
    return stateless(response);
  }

  @Delete('knowledge-mcp')
  @Access('read')
  @HttpCode(405)
  @ApiExcludeEndpoint()
  knowledgeSessionEnd(@Res({ passthrough: true }) response: Response) {
    return stateless(response);
  }

  @Get('admin-mcp')
  @Access('admin')
  @HttpCode(405)
  @ApiExcludeEndpoint()
  adminStream(@Res({ passthrough: true }) response: Response) {
    return stateless(response);
  }

  @Delete('admin-mcp')
  @Access('admin')
  @HttpCode(405)
  @ApiExcludeEndpoint()
  adminSessionEnd(@Res({ passthrough: true }) response: Response) {
    return stateless(response);
  }
}
