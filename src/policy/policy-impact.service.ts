import { ConflictException, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import type { RequestOrigin } from '../auth/users.service.js';
import { DomainErrorCode, DomainException } from '../common/domain.exception.js';
import { OneAtATime, QueueFullError } from '../common/one-at-a-time.js';
import { againOnConflict } from '../db/sql-state.js';
import { ClusterPolicyRepository } from './cluster-policy.repository.js';
import type { EstimateAction, EstimateResponse, PurgeResponse } from './dto/kg-policy.dto.js';
import { KgDerivationRepository, PURGED_TABLES, type VisibilityChange } from './kg-derivation.repository.js';
import { PolicyReconciler } from './policy-reconciler.service.js';
import { PolicyService } from './policy.service.js';

const ESTIMATE_REASON = 'estimate (rolled back)';
/**
 * Runs of an estimate or a purge in all, when PostgreSQL aborts one as a deadlock's victim (its work is one
 * transaction, rolled back whole, so running it again is safe): a dry run or an estimate still meets extraction runs
 * and review actions writing the same rows, which it does not hold off.
 */
const ATTEMPTS = 5;
/**
 * Estimates and purges waiting for their turn in this process, at most (one runs at a time: each holds a database
 * connection for up to a second or two, and a burst of them once took every connection of the pool, so that /health
 * and every reader waited minutes). One more is a 429.
 */
const WAITING_AT_MOST = 8;

/**
 * What a policy change would do before it is made (the estimate), and the hard exclude (purge). Both run the real
 * change inside a transaction: the estimate and the purge dry-run roll it back, so they measure exactly what happens.
 */
@Injectable()
export class PolicyImpactService {
  constructor(
    private readonly policy: PolicyService,
    private readonly policies: ClusterPolicyRepository,
    private readonly derivations: KgDerivationRepository,
    private readonly reconciler: PolicyReconciler,
  ) {}

  /** One estimate or purge at a time in this process, a bounded queue waiting (WAITING_AT_MOST). */
  private readonly turns = new OneAtATime(WAITING_AT_MOST);

  private async oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.turns.run(work);
    } catch (error) {
      if (!(error instanceof QueueFullError)) throw error;
      throw new HttpException(`${error.waiting} estimates or purges are waiting to run already; try again when they are done.`, HttpStatus.TOO_MANY_REQUESTS);
    }
  }

  async estimate(cluster: string, action: EstimateAction): Promise<EstimateResponse> {
    const current = await this.policy.requireKnownCluster(cluster);
    const changes = await this.oneAtATime(() => againOnConflict(ATTEMPTS, () => this.derivations.rolledBack(async (tx) => {
      // A decision like any other (on a policy it then writes and rolls back): the gate before the policy's row, so
      // that a policy change of the cluster under way commits first rather than waiting for this row crosswise.
      await this.policies.holdAgainstChanges(tx);
      await this.derivations.snapshotVisible(cluster, 'before', tx);
      if (action === 'clear') await this.policies.delete(cluster, tx);
      else await this.policies.upsert({ cluster, action, reason: ESTIMATE_REASON, actor: 'estimate' }, tx);
      await this.reconciler.reconcileClusterIn(cluster, tx);
      await this.derivations.snapshotVisible(cluster, 'after', tx);
      return this.derivations.compareSnapshots(tx);
    })));
    return { cluster, action, currentAction: current.action, changes, summary: describeChanges(changes) };
  }

  /**
   * Deletes what derives only from the cluster's excluded pages (its sub-clusters included), in one transaction.
   * Dry-run unless `dryRun` is false and `confirm` repeats the cluster name.
   */
  async purge(cluster: string, options: { confirm?: string; dryRun?: boolean }, origin: RequestOrigin): Promise<PurgeResponse> {
    const current = await this.policy.requireKnownCluster(cluster);
    refuseIncluded(cluster, current);
    const dryRun = options.dryRun ?? true;
    if (!dryRun && options.confirm !== cluster) {
      throw new DomainException(
        DomainErrorCode.InvalidInput,
        `A purge deletes for good: confirm it by sending confirm: "${cluster}" (the cluster name, typed again). Nothing was deleted.`,
      );
    }
    const run = dryRun ? this.derivations.rolledBack.bind(this.derivations) : this.derivations.transaction.bind(this.derivations);
    const result = await this.oneAtATime(() => againOnConflict(ATTEMPTS, () => run(async (tx) => {
      // Purges and dry runs take turns: a dry run deletes (then rolls back) the very rows a purge deletes.
      await this.derivations.takePurgeTurn(tx);
      // A real purge waits for the extraction runs and review actions under way, and holds off new ones (a dry run
      // only measures, so it stops no one).
      if (!dryRun) {
        // Checked again where it counts: an include committed since the check above must win, not be purged.
        refuseIncluded(cluster, await this.policy.holdEffectivePolicy(cluster, tx));
        await this.derivations.lockForPurge(cluster, tx);
      }
      const targets = await this.derivations.selectPurgeTargets(cluster, tx);
      const deleted = await this.derivations.purgeSelected(tx);
      if (!dryRun) {
        await this.policy.record(origin, 'purge', cluster, {
          previousAction: current.action, action: current.action, reason: `purged ${targets.pages} excluded pages`,
          details: { pages: targets.pages, includedPagesKept: targets.includedPagesKept, deleted },
        }, tx);
      }
      return { targets, deleted };
    })));
    const deleted = PURGED_TABLES.map((table) => ({ table, rows: result.deleted[table] }));
    const total = deleted.reduce((sum, d) => sum + d.rows, 0);
    const what = deleted.filter((d) => d.rows > 0).map((d) => `${d.rows} from ${d.table}`).join(', ') || 'nothing';
    const pages = plural(result.targets.pages, 'excluded page');
    const summary = dryRun
      ? `Dry run: purging "${cluster}" would delete ${plural(total, 'row')} derived from ${pages} (${what}). Nothing was deleted.`
      : `Purged "${cluster}": deleted ${plural(total, 'row')} derived from ${pages} (${what}).`;
    return { cluster, dryRun, pages: result.targets.pages, includedPagesKept: result.targets.includedPagesKept, deleted, summary };
  }
}

/** A purge of an included cluster is a 409: its pages would simply be extracted again. */
function refuseIncluded(cluster: string, policy: { effectiveAction: string; inheritedFrom: string | null }): void {
  if (policy.effectiveAction !== 'include') return;
  const via = policy.inheritedFrom ? ` (through its parent "${policy.inheritedFrom}")` : '';
  throw new ConflictException(`The cluster "${cluster}" is included${via}: set it to exclude first, or its pages would simply be extracted again.`);
}

export function describeChanges(changes: VisibilityChange[]): string {
  const list = (side: 'hide' | 'reveal') => {
    const parts = changes.filter((c) => c[side] > 0).map((c) => plural(c[side], c.kind.replace(/s$/, '')));
    if (parts.length === 0) return 'nothing';
    return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  };
  return `would hide ${list('hide')}; reveal ${list('reveal')}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
