import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Data the tests read, vendored in the repo with its licence (a clone needs nothing beside it). */
export const FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

/** The Foam documentation (MIT, test/fixtures/foam-docs/LICENSE): 86 Markdown pages in folders user/… and dev/…. */
export const FOAM_DOCS = path.join(FIXTURES_DIR, 'foam-docs');

/** A small Obsidian vault written for these tests (MIT, test/fixtures/obsidian-vault/LICENSE): callouts, comments, embeds, tags, math. */
export const OBSIDIAN_VAULT = path.join(FIXTURES_DIR, 'obsidian-vault');

/** Tiny files made for the attachment tests (CC0, test/fixtures/attachments/LICENSE): a PNG, a PDF, a script-bearing SVG and HTML, text, WAV. */
export const ATTACHMENT_FIXTURES = path.join(FIXTURES_DIR, 'attachments');
