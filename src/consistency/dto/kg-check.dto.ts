import { ApiProperty } from '@nestjs/swagger';
import { INVARIANT_NAMES } from '../kg-invariants.js';

export class InvariantResultResponse {
  @ApiProperty({ enum: INVARIANT_NAMES }) name!: string;
  @ApiProperty({ description: 'What holds, in one line.' }) explanation!: string;
  @ApiProperty({ description: 'Rows (pages, proposals, nodes, edges) that break it.' }) count!: number;
  @ApiProperty({ type: [String], description: 'Up to five of them, in words.' }) examples!: string[];
  @ApiProperty({ description: 'Whether --repair mends it.' }) repairable!: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'What --repair does about it; null: it needs an admin.' }) repair!: string | null;
  @ApiProperty() ok!: boolean;
}

export class CheckReportResponse {
  @ApiProperty({ description: 'True when no invariant has a finding.' }) ok!: boolean;
  @ApiProperty() findings!: number;
  @ApiProperty() repairable!: number;
  @ApiProperty() unrepairable!: number;
  @ApiProperty({ description: 'The embedding model vectors must come from.' }) embeddingModel!: string;
  @ApiProperty() checkedAt!: string;
  @ApiProperty() durationMs!: number;
  @ApiProperty({ type: [InvariantResultResponse] }) invariants!: InvariantResultResponse[];
  @ApiProperty() summary!: string;
}

export class RepairOutcomeResponse {
  @ApiProperty({ description: 'Rows changed per invariant.', type: 'object', additionalProperties: { type: 'number' } }) repaired!: Record<string, number>;
  @ApiProperty() pagesEnqueued!: number;
  @ApiProperty() reembedEnqueued!: boolean;
  @ApiProperty({ type: [String] }) actions!: string[];
}

export class RepairReportResponse {
  @ApiProperty({ type: CheckReportResponse }) before!: CheckReportResponse;
  @ApiProperty({ type: RepairOutcomeResponse }) repair!: RepairOutcomeResponse;
  @ApiProperty({ type: CheckReportResponse, description: 'Right after the repair: extraction and re-embedding mend theirs once their jobs have run.' })
  after!: CheckReportResponse;
}
