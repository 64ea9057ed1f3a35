import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator.js';
import { KgCalibrationService } from '../kg/kg-calibration.service.js';

/** How proposals' confidence is calibrated (docs/extraction.md), as JSON for admins. */
@ApiTags('knowledge-graph review')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'Not logged in, or a bad token.' })
@ApiForbiddenResponse({ description: 'Not an admin.' })
@Controller('admin/knowledge-graph/calibration')
@Access('admin')
export class CalibrationApiController {
  constructor(private readonly calibration: KgCalibrationService) {}

  @Get()
  @ApiOperation({
    summary: 'Each extractor’s calibration per kind: where the map comes from (this wiki’s reviews, the judged set, none), its knots and its calibration error',
    description: 'Also how many reviews this wiki has per extractor and kind, the calibration error of the confidence admins were shown for them, and how many reviews are still needed before this wiki’s own fit.',
  })
  @ApiOkResponse({ description: '{minReviewed, refitEvery, calibrations: [{extractor, kind, source, method, map, fittedOn, reviewed, approved, rawError, error, fittedAt, reviewedNow, shownError, reviewsToOwnFit}]}' })
  status() {
    return this.calibration.status();
  }

  @Post('refit')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Refits, now, every extractor and kind with at least KURATE_CALIBRATION_MIN_REVIEWED reviews, and recalibrates the pending proposals',
    description: 'Extraction jobs also refit by themselves once KURATE_CALIBRATION_REFIT_EVERY more reviews came in.',
  })
  @ApiOkResponse({ description: '{refitted: [{extractor, kind, reviewed, recalibrated}], status}' })
  refit() {
    return this.calibration.refitNow();
  }
}
