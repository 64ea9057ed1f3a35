export const ROLES = ['reader', 'author', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const ROLE_RANK: Record<Role, number> = { reader: 1, author: 2, admin: 3 };

/** True when `role` may do what `needed` may do (reader < author < admin). */
export function roleAtLeast(role: Role | null, needed: Role): boolean {
  return role !== null && ROLE_RANK[role] >= ROLE_RANK[needed];
}

/** The lower of two roles: a token never grants more than its owner has. */
export function lowerRole(a: Role, b: Role): Role {
  return ROLE_RANK[a] <= ROLE_RANK[b] ? a : b;
}

/**
 * Who is acting. Services take it as an argument, so the caller decides where it comes from: the identity
 * middleware sets it from a Bearer token or the session cookie; an anonymous visitor has no userId and no role.
 */
export interface Actor {
  userId: string | null;
  /** The display name, recorded as the author of revisions and in the audit log. */
  name: string;
  role: Role | null;
  /** How the request authenticated: a session cookie, an API token, or neither. */
  via?: 'session' | 'token' | 'anonymous';
  /** The API token's id when `via` is 'token'. */
  tokenId?: string;
  /** When `via` is 'token': when that token expires (null: never). A token cannot create one that outlives it. */
  tokenExpiresAt?: Date | null;
  /** When `via` is 'token': its scopes (`metrics` lets it scrape /metrics). */
  tokenScopes?: readonly string[];
  /**
   * When `via` is 'token': true when its scopes give it less than its owner's role (an admin's `read` token). Such a
   * token was made to do less: it cannot create tokens or revoke any but itself.
   */
  tokenRestricted?: boolean;
}

export const ANONYMOUS: Actor = Object.freeze({ userId: null, name: 'anonymous', role: null, via: 'anonymous' as const });

/** The server itself (first admin from the environment, maintenance). */
export const SYSTEM_ACTOR: Actor = Object.freeze({ userId: null, name: 'system', role: null });
