import { Injectable } from '@nestjs/common';

/** One invariant as the health panel on /admin/kg-policy shows it. */
export interface KgHealthInvariant {
  name: string;
  explanation: string;
  count: number;
  repairable: boolean;
  examples: string[];
}

export interface KgHealthSummary {
  ok: boolean;
  findings: number;
  repairable: number;
  summary: string;
  checkedAt: string;
  durationMs: number;
  invariants: KgHealthInvariant[];
}

/** Where the panel's numbers come from: the consistency checker (src/consistency), a module above this one. */
export interface KgHealthSource {
  health(): Promise<KgHealthSummary>;
}

/**
 * The health panel of the policy's front door. The checker lives in a higher module (it needs extraction to repair),
 * so it registers here at start-up, as PageSaveHooks' listeners do; without one the panel is simply not shown.
 */
@Injectable()
export class KgHealthPanel {
  private source: KgHealthSource | null = null;

  register(source: KgHealthSource): void {
    this.source = source;
  }

  read(): Promise<KgHealthSummary | null> {
    return this.source ? this.source.health() : Promise.resolve(null);
  }
}
