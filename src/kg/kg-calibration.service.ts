import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { KurateConfig } from '../config/kurate-config.js';
import { calibrate, expectedCalibrationError, fitCalibration, IDENTITY_MAP, type CalibrationMap, type CalibrationMethod } from './calibration.js';
import { BUILTIN_CALIBRATION } from './calibration-builtin.js';
import { KgCalibrationRepository, type ProposalKind, type StoredFit } from './kg-calibration.repository.js';

const KINDS: ProposalKind[] = ['node', 'edge'];
/** How long a process keeps the fits it read before reading them again (a refit elsewhere reaches it within this). */
const FITS_TTL_MS = 30_000;
/** How long the review counts that decide a refit are kept: an extraction job does not count the reviews each time. */
const COUNTS_TTL_MS = 60_000;

export type CalibrationSource = 'instance' | 'judged' | 'none';

/** The map one extractor's proposals of one kind are calibrated with, and where it comes from. */
export interface ActiveCalibration {
  extractor: string;
  kind: ProposalKind;
  source: CalibrationSource;
  /** How the map was fitted (null: no map, raw scores). */
  method: CalibrationMethod | null;
  map: CalibrationMap;
  /** What it was fitted on: this wiki's reviews, or the judged set shipped with it. */
  fittedOn: string;
  reviewed: number;
  approved: number;
  /** ECE of the raw scores and of the calibrated ones (cross-validated) on what it was fitted on. */
  rawError: number | null;
  error: number | null;
  fittedAt: string | null;
}

export interface CalibrationStatus {
  minReviewed: number;
  refitEvery: number;
  calibrations: (ActiveCalibration & {
    /** Reviews of this extractor and kind in this wiki now (approved or rejected, with a raw score). */
    reviewedNow: number;
    /** ECE of the confidence admins were shown for those reviews. */
    shownError: number | null;
    /** Reviews still needed before this wiki's own fit replaces the judged one (0 once it has). */
    reviewsToOwnFit: number;
  })[];
}

/**
 * Calibrated confidence (docs/extraction.md): the map from an extractor's raw score to the chance that an admin
 * approves the proposal. Until a wiki has KURATE_CALIBRATION_MIN_REVIEWED reviews of an extractor's proposals of one
 * kind, the map fitted on the judged set (src/kg/calibration-builtin.ts, built-in extractor only; other extractors'
 * scores stay as they are); from then on, a map fitted on the wiki's own approvals and rejections, refitted each
 * KURATE_CALIBRATION_REFIT_EVERY further reviews (checked when a page is extracted, or on demand), after which the
 * pending proposals are recalibrated.
 */
@Injectable()
export class KgCalibrationService {
  private readonly logger = new Logger('Calibration');
  private fits: { at: number; rows: StoredFit[] } | null = null;
  private counts: { at: number; rows: Awaited<ReturnType<KgCalibrationRepository['reviewCounts']>> } | null = null;
  private refitting: Promise<unknown> | null = null;

  constructor(
    private readonly repository: KgCalibrationRepository,
    private readonly config: KurateConfig,
  ) {}

  /** The active calibration of an extractor's proposals of one kind. */
  async active(extractor: string, kind: ProposalKind): Promise<ActiveCalibration> {
    const own = (await this.storedFits()).find((f) => f.extractor === extractor && f.kind === kind);
    if (own) {
      return {
        extractor, kind, source: 'instance', method: own.method, map: own.map, fittedOn: `${own.reviewed} reviews in this wiki`, reviewed: own.reviewed,
        approved: own.approved, rawError: own.rawError, error: own.error, fittedAt: own.fittedAt,
      };
    }
    const judged = extractor === 'builtin' ? BUILTIN_CALIBRATION[kind] : null;
    if (judged) {
      return {
        extractor, kind, source: 'judged', method: judged.method, map: judged.map, fittedOn: judged.fittedOn, reviewed: judged.judged, approved: judged.kept,
        rawError: judged.rawError, error: judged.error, fittedAt: null,
      };
    }
    return { extractor, kind, source: 'none', method: null, map: IDENTITY_MAP, fittedOn: 'nothing yet: the raw score is shown', reviewed: 0, approved: 0, rawError: null, error: null, fittedAt: null };
  }

  /** Both kinds' maps for one extractor, for an extraction run. */
  async mapsFor(extractor: string): Promise<Record<ProposalKind, CalibrationMap>> {
    return { node: (await this.active(extractor, 'node')).map, edge: (await this.active(extractor, 'edge')).map };
  }

  /**
   * Refits what is due (called by extraction jobs, at most once a minute per process): an extractor and kind with at
   * least minReviewed reviews and no fit of its own yet, or refitEvery more reviews than its fit stands on.
   */
  async refitIfDue(): Promise<void> {
    const now = Date.now();
    if (this.counts && now - this.counts.at < COUNTS_TTL_MS) return;
    this.counts = { at: now, rows: await this.repository.reviewCounts() };
    const due = await this.due(this.counts.rows);
    if (due.length > 0) await this.refit(due);
  }

  /** Refits every extractor and kind that has enough reviews, now (the admin's "Refit now"), and says what it did. */
  async refitNow(): Promise<{ refitted: { extractor: string; kind: ProposalKind; reviewed: number; recalibrated: number }[]; status: CalibrationStatus }> {
    const counts = await this.repository.reviewCounts();
    const eligible = counts.filter((c) => c.reviewed >= this.config.extraction.calibration.minReviewed).map((c) => ({ extractor: c.extractor, kind: c.kind }));
    const refitted = await this.refit(eligible);
    return { refitted, status: await this.status() };
  }

  /** The calibrated confidence of pending proposals among these ids, set from their raw scores (after their support changed). */
  async recalibrate(ids: string[], tx: EntityManager): Promise<void> {
    const rows = await this.repository.pendingScores(ids, tx);
    const maps = new Map<string, CalibrationMap>();
    const changed: { id: string; confidence: number }[] = [];
    for (const row of rows) {
      const key = `${row.extractor}\u0000${row.kind}`;
      if (!maps.has(key)) maps.set(key, (await this.active(row.extractor, row.kind)).map);
      const confidence = calibrate(maps.get(key)!, row.raw);
      if (Math.abs(confidence - row.confidence) > 1e-6) changed.push({ id: row.id, confidence });
    }
    await this.repository.setConfidences(changed, tx);
  }

  /** What the admin screens show: each extractor's active calibration per kind, its error, and this wiki's reviews. */
  async status(): Promise<CalibrationStatus> {
    const { minReviewed, refitEvery } = this.config.extraction.calibration;
    const counts = await this.repository.reviewCounts();
    const shown = await this.repository.shownConfidences();
    const extractors = [...new Set(['builtin', ...counts.map((c) => c.extractor), ...(await this.storedFits()).map((f) => f.extractor)])].sort();
    const calibrations: CalibrationStatus['calibrations'] = [];
    for (const extractor of extractors) {
      for (const kind of KINDS) {
        const active = await this.active(extractor, kind);
        const reviewedNow = counts.find((c) => c.extractor === extractor && c.kind === kind)?.reviewed ?? 0;
        const mine = shown.filter((s) => s.extractor === extractor && s.kind === kind);
        calibrations.push({
          ...active, reviewedNow, shownError: mine.length === 0 ? null : expectedCalibrationError(mine),
          reviewsToOwnFit: active.source === 'instance' ? 0 : Math.max(0, minReviewed - reviewedNow),
        });
      }
    }
    return { minReviewed, refitEvery, calibrations };
  }

  private async due(counts: { extractor: string; kind: ProposalKind; reviewed: number }[]) {
    const { minReviewed, refitEvery } = this.config.extraction.calibration;
    const fits = await this.storedFits(true);
    return counts
      .filter((c) => {
        if (c.reviewed < minReviewed) return false;
        const fit = fits.find((f) => f.extractor === c.extractor && f.kind === c.kind);
        return !fit || c.reviewed >= fit.reviewed + refitEvery;
      })
      .map((c) => ({ extractor: c.extractor, kind: c.kind }));
  }

  /** Fits each on its reviews, stores the fit and recalibrates the pending proposals, one transaction each; one refit at a time per process. */
  private async refit(which: { extractor: string; kind: ProposalKind }[]) {
    while (this.refitting) await this.refitting.catch(() => undefined);
    const work = (async () => {
      const done: { extractor: string; kind: ProposalKind; reviewed: number; recalibrated: number }[] = [];
      for (const { extractor, kind } of which) {
        const scores = await this.repository.reviewedScores(extractor, kind);
        if (scores.length < this.config.extraction.calibration.minReviewed) continue;
        const fit = fitCalibration(scores);
        const recalibrated = await this.repository.transaction(async (tx) => {
          await this.repository.saveFit(extractor, kind, fit, tx);
          const raws = await this.repository.pendingRawScores(extractor, kind, tx);
          return this.repository.setPendingConfidences(extractor, kind, raws.map((raw) => ({ raw, confidence: calibrate(fit.map, raw) })), tx);
        });
        this.logger.log(`Refitted the calibration of ${extractor} ${kind}s on ${fit.reviewed} reviews (${fit.method}; ECE ${fit.rawError} raw, ${fit.error} calibrated); ${recalibrated} pending proposals recalibrated`);
        done.push({ extractor, kind, reviewed: fit.reviewed, recalibrated });
      }
      this.fits = null;
      return done;
    })();
    this.refitting = work;
    try {
      return await work;
    } finally {
      this.refitting = null;
    }
  }

  private async storedFits(fresh = false): Promise<StoredFit[]> {
    const now = Date.now();
    if (!fresh && this.fits && now - this.fits.at < FITS_TTL_MS) return this.fits.rows;
    this.fits = { at: now, rows: await this.repository.fits() };
    return this.fits.rows;
  }
}
