/** Every error a user can cause, by code. The HTTP status for each lives in one place: domain-exception.filter.ts. */
export enum DomainErrorCode {
  NotFound = 'not_found',
  InvalidInput = 'invalid_input',
  InvalidFrontmatter = 'invalid_frontmatter',
  VersionConflict = 'version_conflict',
  SlugTaken = 'slug_taken',
  PageInTrash = 'page_in_trash',
  NotInTrash = 'not_in_trash',
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
