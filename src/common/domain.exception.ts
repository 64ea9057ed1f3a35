/** Every error a user can cause, by code. The HTTP status for each lives in one place: domain-exception.filter.ts. */
export enum DomainErrorCode {
  NotFound = 'not_found',
  InvalidInput = 'invalid_input',
  InvalidFrontmatter = 'invalid_frontmatter',
  VersionConflict = 'version_conflict',
  SlugTaken = 'slug_taken',
  PageInTrash = 'page_in_trash',
  NotInTrash = 'not_in_trash',
  /** No user (or an invalid, expired or revoked token) where a route needs one. */
  Unauthenticated = 'unauthenticated',
  /** A known user whose role (or token scope) is below what the route needs. */
  Forbidden = 'forbidden',
  InvalidCsrfToken = 'invalid_csrf_token',
  /** The same answer for an unknown email and a wrong password. */
  InvalidCredentials = 'invalid_credentials',
  AccountLocked = 'account_locked',
  EmailTaken = 'email_taken',
  /** The change would leave the wiki without an enabled admin. */
  LastAdmin = 'last_admin',
  /** An upload larger than the configured limit (KURATE_ATTACHMENTS_MAX_BYTES). */
  PayloadTooLarge = 'payload_too_large',
  /** Another file already has this path (an upload that may not replace it). */
  PathTaken = 'path_taken',
  /** Text that would take too long to process (a frontmatter block or a nesting over the limits, a render that timed out). */
  TooComplex = 'too_complex',
  /** The server has more of this work queued than it takes on; try again shortly. */
  Busy = 'busy',
}

export class DomainException extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** Extra facts for the client (e.g. the current version on a conflict); never internals. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
