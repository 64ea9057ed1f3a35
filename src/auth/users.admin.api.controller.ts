import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from './access.decorator.js';
import { CreateUserDto, ListUsersQueryDto, ResetPasswordDto, SetRoleDto, UserListResponse, UserResponse, userResponse } from './dto/users.dto.js';
import { Origin } from './request-origin.decorator.js';
import { UsersService, type RequestOrigin } from './users.service.js';

const uuid = () => new ParseUUIDPipe();

@ApiTags('admin')
@ApiBearerAuth()
@Controller('api/admin/users')
@Access('admin')
export class UsersAdminApiController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOkResponse({ type: UserListResponse })
  async list(@Query() query: ListUsersQueryDto): Promise<UserListResponse> {
    const page = query.page ?? 1;
    const perPage = query.perPage ?? 100;
    const [items, total] = await this.users.list(perPage, (page - 1) * perPage);
    return { items: items.map(userResponse), total, page, perPage };
  }

  @Post()
  @ApiOperation({ summary: 'Creates a user' })
  @ApiCreatedResponse({ type: UserResponse })
  @ApiConflictResponse({ description: 'The email is taken.' })
  async create(@Body() dto: CreateUserDto, @Origin() origin: RequestOrigin): Promise<UserResponse> {
    return userResponse(await this.users.create(dto, origin));
  }

  @Get(':id')
  @ApiOkResponse({ type: UserResponse })
  async get(@Param('id', uuid()) id: string): Promise<UserResponse> {
    return userResponse(await this.users.get(id));
  }

  @Put(':id/role')
  @ApiOperation({ summary: "Changes a user's role" })
  @ApiOkResponse({ type: UserResponse })
  @ApiConflictResponse({ description: 'It would leave no enabled admin.' })
  async setRole(@Param('id', uuid()) id: string, @Body() dto: SetRoleDto, @Origin() origin: RequestOrigin): Promise<UserResponse> {
    return userResponse(await this.users.setRole(id, dto.role, origin));
  }

  @Post(':id/disable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Disables a user: their sessions end and their tokens stop working' })
  @ApiOkResponse({ type: UserResponse })
  @ApiConflictResponse({ description: 'It would leave no enabled admin.' })
  async disable(@Param('id', uuid()) id: string, @Origin() origin: RequestOrigin): Promise<UserResponse> {
    return userResponse(await this.users.setDisabled(id, true, origin));
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiOkResponse({ type: UserResponse })
  async enable(@Param('id', uuid()) id: string, @Origin() origin: RequestOrigin): Promise<UserResponse> {
    return userResponse(await this.users.setDisabled(id, false, origin));
  }

  @Put(':id/password')
  @ApiOperation({ summary: "Sets a new password for a user; their sessions end" })
  @ApiOkResponse({ type: UserResponse })
  async resetPassword(@Param('id', uuid()) id: string, @Body() dto: ResetPasswordDto, @Origin() origin: RequestOrigin): Promise<UserResponse> {
    return userResponse(await this.users.resetPassword(id, dto.password, origin));
  }
}
