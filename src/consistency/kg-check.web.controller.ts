import { Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { Origin } from '../auth/request-origin.decorator.js';
import type { RequestOrigin } from '../auth/users.service.js';
import { KgConsistencyService } from './kg-consistency.service.js';

/** The checker's own page (/admin/kg-policy/ui/health): every invariant with its examples, and the repair form. */
@ApiExcludeController()
@Controller('admin/kg-policy/ui/health')
@Access('admin')
export class KgCheckWebController {
  constructor(private readonly checker: KgConsistencyService) {}

  @Get()
  async show(@Res() res: Response) {
    res.render('admin/kg-health', { title: 'Knowledge-graph health', report: await this.checker.check(), repair: null });
  }

  @Post('repair')
  @HttpCode(200)
  async repair(@Origin() origin: RequestOrigin, @Res() res: Response) {
    const result = await this.checker.repair(origin);
    res.render('admin/kg-health', { title: 'Knowledge-graph health', report: result.after, repair: result.repair });
  }
}
