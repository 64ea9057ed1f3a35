// Where a page sits in its vault's hierarchy, from the path it was imported from (`pages.vault_path`). Two
// conventions that documentation vaults use for "this page belongs under that one":
// - folder notes: `tools/cli/list.md` sits under `tools/cli.md` (Foam), `tools/cli/index.md`, `tools/cli/README.md`
//   or `tools/cli/cli.md` (the folder's own note);
// - dotted names: `dendron.topic.templates.schema-template.md` sits under `dendron.topic.templates.md` (Dendron).
// A pure function of two paths: the extraction reads a link between two such pages as evidence of a typed relation
// (the built-in extractor, src/extractors/builtin/builtin.extractor.ts).

/** Which place a linked page has relative to the page: its parent, its child, or neither. */
export type HierarchyPlace = 'parent' | 'child';

const FOLDER_NOTE_NAMES = ['index', 'readme'];

/** A vault path as compared: `/` separators, no leading `./` or `/`, lower case. */
function normalised(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(?:\.\/|\/)+/, '').toLowerCase();
}

/** The paths the parent of the page at `path` may have (nearest first); empty for a page at the root without a dot. */
export function parentPaths(path: string): string[] {
  const at = normalised(path);
  if (!at.endsWith('.md')) return [];
  const slash = at.lastIndexOf('/');
  const folder = slash >= 0 ? at.slice(0, slash) : '';
  const name = at.slice(slash + 1, -'.md'.length);
  const out: string[] = [];
  const dot = name.lastIndexOf('.');
  if (dot > 0 && dot < name.length - 1) out.push(`${folder ? `${folder}/` : ''}${name.slice(0, dot)}.md`);
  if (folder) {
    const folderName = folder.slice(folder.lastIndexOf('/') + 1);
    // The folder's own note is the parent of the folder's other pages; its own parent is the folder above's.
    if (!FOLDER_NOTE_NAMES.includes(name) && name !== folderName) {
      out.push(`${folder}.md`, ...FOLDER_NOTE_NAMES.map((n) => `${folder}/${n}.md`), `${folder}/${folderName}.md`);
    }
  }
  return out.filter((p) => p !== at);
}

/** The place of the page at `target` relative to the page at `page`, or null (unrelated, or a path unknown). */
export function hierarchyPlace(page: string | null | undefined, target: string | null | undefined): HierarchyPlace | null {
  if (!page || !target) return null;
  const [a, b] = [normalised(page), normalised(target)];
  if (a === b) return null;
  if (parentPaths(b).includes(a)) return 'child';
  if (parentPaths(a).includes(b)) return 'parent';
  return null;
}
