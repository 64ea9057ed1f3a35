import { SetMetadata } from '@nestjs/common';

/**
 * Who may use a route:
 * - `public`: anyone, always (login, setup, health);
 * - `read`: anyone when KURATE_PUBLIC_READ is true (the default), otherwise any logged-in user;
 * - `user`: any logged-in user, whatever the role (their own tokens);
 * - `author`: authors and admins;
 * - `admin`: admins only;
 * - `metrics`: admins, and tokens with the `metrics` scope (a scraper's service account).
 * A route without a declaration is denied to everyone (AccessGuard).
 */
export const ACCESS_LEVELS = ['public', 'read', 'user', 'author', 'admin', 'metrics'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export const ACCESS_KEY = 'kurate:access';

export const Access = (level: AccessLevel) => SetMetadata(ACCESS_KEY, level);
