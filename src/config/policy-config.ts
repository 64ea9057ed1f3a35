import { ConfigError } from './config-error.js';
import type { EnvironmentDto } from './environment.dto.js';

/** The knowledge-graph inclusion policy (src/policy/, docs/kg-policy.md). */
export interface PolicyConfig {
  /** KURATE_SYSTEM_PAGE_PATTERN: page slugs it matches are system pages, never fed to the knowledge graph. */
  systemPagePattern: RegExp | null;
  /** KURATE_POLICY_REVIEW_DAYS: a policy not reviewed for this many days is flagged as stale. */
  reviewDays: number;
  /** KURATE_POLICY_RECONCILE_BATCH: pages per reconciliation transaction, so that no lock is held for long. */
  reconcileBatchSize: number;
}

export const DEFAULT_POLICY_CONFIG: PolicyConfig = { systemPagePattern: null, reviewDays: 90, reconcileBatchSize: 1000 };

export function policyConfigFrom(raw: EnvironmentDto): PolicyConfig {
  return {
    systemPagePattern: systemPagePattern(raw.KURATE_SYSTEM_PAGE_PATTERN),
    reviewDays: raw.KURATE_POLICY_REVIEW_DAYS ?? DEFAULT_POLICY_CONFIG.reviewDays,
    reconcileBatchSize: raw.KURATE_POLICY_RECONCILE_BATCH ?? DEFAULT_POLICY_CONFIG.reconcileBatchSize,
  };
}

// JavaScript (explain) and PostgreSQL (set-based reconciliation) both run the pattern; these constructs differ.
const NON_PORTABLE_REGEX = [
  { construct: /\\[bB]/, name: 'word boundaries (\\b, \\B)' },
  { construct: /\(\?<[=!]/, name: 'lookbehind ((?<=…), (?<!…))' },
  { construct: /\(\?<[A-Za-z]|\\k</, name: 'named groups' },
  { construct: /\\[1-9]/, name: 'backreferences (\\1 …)' },
  { construct: /\\[pPu]\{|\\u[0-9a-fA-F]{4}|\\c[A-Za-z]/, name: 'Unicode property or code escapes' },
];

function systemPagePattern(source: string | undefined): RegExp | null {
  if (source === undefined) return null;
  let pattern: RegExp;
  try {
    pattern = new RegExp(source);
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: KURATE_SYSTEM_PAGE_PATTERN is not a valid regular expression (${(error as Error).message}).`,
    );
  }
  const unsupported = NON_PORTABLE_REGEX.find((rule) => rule.construct.test(source));
  if (unsupported) {
    throw new ConfigError(
      `Invalid configuration: KURATE_SYSTEM_PAGE_PATTERN uses ${unsupported.name}, which PostgreSQL reads differently; use anchors, character classes, groups and alternation (got ${JSON.stringify(source)}).`,
    );
  }
  return pattern;
}
