import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { CalibrationFit, CalibrationMap, CalibrationMethod, ReviewedScore } from './calibration.js';

export type ProposalKind = 'node' | 'edge';

export interface StoredFit extends CalibrationFit {
  extractor: string;
  kind: ProposalKind;
  fittedAt: string;
}

export interface ReviewCount {
  extractor: string;
  kind: ProposalKind;
  reviewed: number;
  approved: number;
}

/** The SQL of calibration: the reviews it is fitted on, the fits it keeps (kg_calibration_fits), and the pending proposals it recalibrates. */
@Injectable()
export class KgCalibrationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Reviewed proposals (approved or rejected) with a raw score, per extractor and kind. */
  async reviewCounts(): Promise<ReviewCount[]> {
    return this.dataSource.query(
      `SELECT extractor, kind, count(*)::int AS reviewed, count(*) FILTER (WHERE status = 'approved')::int AS approved
         FROM kg_proposals WHERE status IN ('approved', 'rejected') AND raw_confidence IS NOT NULL
        GROUP BY extractor, kind ORDER BY extractor, kind`,
    );
  }

  /** The reviews of one extractor and kind: raw score, and approved or not. */
  async reviewedScores(extractor: string, kind: ProposalKind): Promise<ReviewedScore[]> {
    const rows: { raw: number; approved: boolean }[] = await this.dataSource.query(
      `SELECT raw_confidence AS raw, status = 'approved' AS approved FROM kg_proposals
        WHERE extractor = $1 AND kind = $2 AND status IN ('approved', 'rejected') AND raw_confidence IS NOT NULL ORDER BY id`,
      [extractor, kind],
    );
    return rows.map((r) => ({ raw: Number(r.raw), approved: r.approved }));
  }

  /** The confidence admins were shown for the proposals they reviewed, with the outcome: how calibrated it was. */
  async shownConfidences(): Promise<{ extractor: string; kind: ProposalKind; confidence: number; approved: boolean }[]> {
    const rows: { extractor: string; kind: ProposalKind; confidence: number; approved: boolean }[] = await this.dataSource.query(
      `SELECT extractor, kind, confidence, status = 'approved' AS approved FROM kg_proposals
        WHERE status IN ('approved', 'rejected') AND raw_confidence IS NOT NULL`,
    );
    return rows.map((r) => ({ ...r, confidence: Number(r.confidence) }));
  }

  async fits(): Promise<StoredFit[]> {
    const rows: {
      extractor: string; kind: ProposalKind; method: CalibrationMethod; points: [number, number][]; reviewed: number; approved: number; ece_raw: number; ece: number; fitted_at: string;
    }[] = await this.dataSource.query(
      `SELECT extractor, kind, method, points, reviewed, approved, ece_raw, ece, fitted_at::text AS fitted_at FROM kg_calibration_fits ORDER BY extractor, kind`,
    );
    return rows.map((r) => ({
      extractor: r.extractor, kind: r.kind, method: r.method, map: { points: r.points }, reviewed: r.reviewed, approved: r.approved,
      rawError: Number(r.ece_raw), error: Number(r.ece), fittedAt: r.fitted_at,
    }));
  }

  async saveFit(extractor: string, kind: ProposalKind, fit: CalibrationFit, tx: EntityManager): Promise<void> {
    await tx.query(
      `INSERT INTO kg_calibration_fits (extractor, kind, method, points, reviewed, approved, ece_raw, ece, fitted_at)
       VALUES ($1, $2, $8, $3::jsonb, $4, $5, $6, $7, now())
       ON CONFLICT (extractor, kind) DO UPDATE SET method = EXCLUDED.method, points = EXCLUDED.points, reviewed = EXCLUDED.reviewed, approved = EXCLUDED.approved,
              ece_raw = EXCLUDED.ece_raw, ece = EXCLUDED.ece, fitted_at = EXCLUDED.fitted_at`,
      [extractor, kind, JSON.stringify(fit.map.points), fit.reviewed, fit.approved, fit.rawError, fit.error, fit.method],
    );
  }

  /** The distinct raw scores of pending proposals of one extractor and kind (the built-in extractor has few). */
  async pendingRawScores(extractor: string, kind: ProposalKind, tx: EntityManager): Promise<number[]> {
    const rows: { raw: number }[] = await tx.query(
      `SELECT DISTINCT raw_confidence AS raw FROM kg_proposals WHERE status = 'pending' AND extractor = $1 AND kind = $2 AND raw_confidence IS NOT NULL`,
      [extractor, kind],
    );
    return rows.map((r) => Number(r.raw));
  }

  /** Sets the calibrated confidence of pending proposals by their raw score; only rows whose confidence changes are written. */
  async setPendingConfidences(extractor: string, kind: ProposalKind, map: { raw: number; confidence: number }[], tx: EntityManager): Promise<number> {
    if (map.length === 0) return 0;
    const rows: { n: number }[] = await tx.query(
      `WITH changed AS (
         UPDATE kg_proposals p SET confidence = m.confidence, updated_at = now()
           FROM jsonb_to_recordset($3::jsonb) AS m(raw real, confidence real)
          WHERE p.status = 'pending' AND p.extractor = $1 AND p.kind = $2 AND p.raw_confidence = m.raw AND p.confidence IS DISTINCT FROM m.confidence
         RETURNING 1)
       SELECT count(*)::int AS n FROM changed`,
      [extractor, kind, JSON.stringify(map)],
    );
    return rows[0]?.n ?? 0;
  }

  /** Pending proposals among these ids, with what calibrating them needs. */
  async pendingScores(ids: string[], tx: EntityManager): Promise<{ id: string; extractor: string; kind: ProposalKind; raw: number; confidence: number }[]> {
    if (ids.length === 0) return [];
    const rows: { id: string; extractor: string; kind: ProposalKind; raw: number; confidence: number }[] = await tx.query(
      `SELECT id::text AS id, extractor, kind, raw_confidence AS raw, confidence FROM kg_proposals
        WHERE id = ANY($1::bigint[]) AND status = 'pending' AND raw_confidence IS NOT NULL`,
      [ids],
    );
    return rows.map((r) => ({ ...r, raw: Number(r.raw), confidence: Number(r.confidence) }));
  }

  async setConfidences(rows: { id: string; confidence: number }[], tx: EntityManager): Promise<void> {
    if (rows.length === 0) return;
    await tx.query(
      `UPDATE kg_proposals p SET confidence = m.confidence FROM jsonb_to_recordset($1::jsonb) AS m(id bigint, confidence real) WHERE p.id = m.id`,
      [JSON.stringify(rows)],
    );
  }
}

export type { CalibrationMap };
