/** extracted: stands on the pages that support it; manual and import: an admin made it, so it stands on its own. */
export const KG_ORIGINS = ['extracted', 'manual', 'import'] as const;
export type KgOrigin = (typeof KG_ORIGINS)[number];
