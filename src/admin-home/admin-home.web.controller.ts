import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator.js';
import { AdminHomeService } from './admin-home.service.js';

const clusterHref = (cluster: string) => `/admin/kg-policy/ui/clusters/${encodeURIComponent(cluster)}`;

/** /admin: the admins' home, what waits for them in each room, with a link into it. */
@ApiExcludeController()
@Controller('admin')
@Access('admin')
export class AdminHomeWebController {
  constructor(private readonly home: AdminHomeService) {}

  @Get()
  async show(@Res() res: Response) {
    const home = await this.home.read();
    const { pages } = home.extraction;
    res.render('admin/home', {
      title: 'Administration',
      nav: 'admin-home',
      ...home,
      policy: {
        ...home.policy,
        stale: home.policy.stale.map((s) => ({ ...s, href: clusterHref(s.cluster) })),
        undecided: home.policy.undecided.slice(0, 8).map((u) => ({ ...u, href: clusterHref(u.cluster) })),
        moreUndecided: Math.max(0, home.policy.undecided.length - 8),
        undecidedCount: home.policy.undecided.length,
      },
      extraction: {
        ...home.extraction,
        // Extracted and current, of the pages the policy lets in.
        upToDate: Math.max(0, pages.extracted - pages.changedSinceExtraction),
        percent: pages.included === 0 ? null : Math.round((100 * Math.max(0, pages.extracted - pages.changedSinceExtraction)) / pages.included),
        busy: home.extraction.queued + home.extraction.running > 0,
      },
    });
  }
}
