import { clustersOf, parseFrontmatter, serializeFrontmatter } from '../pages/markdown/frontmatter.js';
import { pageSlug, slugify } from '../pages/markdown/slug.js';
import { titleOfFileName } from './file-names.js';

/** What `POST /api/import` takes for one page. */
export interface ImportPage {
  path: string;
  title: string;
  body: string;
  /** The cluster whose `cluster:` line was added to the body for the file's folder (export leaves it out again). */
  addedCluster?: string;
}

export interface VaultSource {
  relativePath: string;
  source: string;
}

export interface RejectedFile {
  path: string;
  reason: string;
}

const MAX_CLUSTER_SEGMENTS = 2;

/** The cluster a file's folders give it: the first two folders, slugified (`user/tools/cli/x.md` → `user/tools`). */
export function clusterOfPath(relativePath: string): string | null {
  const folders = relativePath.split('/').slice(0, -1).map(slugify).filter(Boolean);
  return folders.length === 0 ? null : folders.slice(0, MAX_CLUSTER_SEGMENTS).join('/');
}

/**
 * The source with `cluster:` added to its frontmatter (a block is added when there is none). The line is inserted
 * as text so that the author's YAML (comments, quoting, key order) stays byte-identical; only when that would not
 * read back as the cluster is the frontmatter re-serialised. A source whose frontmatter already names a cluster,
 * or does not parse (the server reports the line), is returned unchanged.
 */
export function withCluster(source: string, cluster: string): string {
  let parsed: ReturnType<typeof parseFrontmatter>;
  try {
    parsed = parseFrontmatter(source);
  } catch {
    return source;
  }
  if (parsed.frontmatter.cluster !== undefined) return source;
  const eol = /\r\n/.exec(source)?.[0] ?? '\n';
  const bom = source.startsWith('\uFEFF') ? '\uFEFF' : '';
  const candidates = [`cluster: ${cluster}`, `cluster: ${JSON.stringify(cluster)}`].map((line) => {
    if (!parsed.hasFrontmatter) return `${bom}---${eol}${line}${eol}---${eol}${source.slice(bom.length)}`;
    const fence = /^\uFEFF?---[ \t]*(\r?\n)/.exec(source)!;
    return `${fence[0]}${line}${fence[1]}${source.slice(fence[0].length)}`;
  });
  // A cluster such as `2024` would read as a number unquoted, and a flow-style block (`{a: 1}`) cannot take a line.
  const readsBack = (text: string) => {
    try {
      return clustersOf(parseFrontmatter(text).frontmatter)[0] === cluster;
    } catch {
      return false;
    }
  };
  return candidates.find(readsBack) ?? serializeFrontmatter({ ...parsed.frontmatter, cluster }, parsed.body);
}

/**
 * The source as it was before `withCluster(source, cluster)` added its line, or the source itself when that line is
 * not what withCluster adds there (an author's own `cluster:` line is kept): the inverse `kurate export` applies to a
 * note that import gave its folder's cluster, so that the vault comes back byte for byte.
 */
export function withoutCluster(source: string, cluster: string): string {
  const bom = source.startsWith('\uFEFF') ? '\uFEFF' : '';
  const fence = /^\uFEFF?---[ \t]*(\r?\n)/.exec(source);
  const candidates: string[] = [];
  for (const line of [`cluster: ${cluster}`, `cluster: ${JSON.stringify(cluster)}`]) {
    // A block of its own, added to a note that had no frontmatter.
    for (const eol of ['\n', '\r\n']) {
      const block = `${bom}---${eol}${line}${eol}---${eol}`;
      if (source.startsWith(block)) candidates.push(bom + source.slice(block.length));
    }
    // A line at the top of the note's own block.
    if (fence && source.startsWith(`${line}${fence[1]}`, fence[0].length)) {
      candidates.push(fence[0] + source.slice(fence[0].length + line.length + fence[1].length));
    }
  }
  return candidates.find((original) => withCluster(original, cluster) === source) ?? source;
}

interface Candidate extends ImportPage {
  frontmatterTitle: string | undefined;
  slug: string;
  folders: string[];
}

/**
 * Turns vault files into pages. Two files with the same name in different folders (`index.md`, `user/index.md`)
 * would be one page, each import overwriting the other: the shallowest keeps its name and the others are titled by
 * as many of their folders as it takes to be unique (`user/index`), like Foam's identifiers. Files whose frontmatter
 * `title:` clashes cannot be renamed without editing them, so they are rejected with the reason.
 */
export function pagesOfVault(sources: VaultSource[]): { pages: ImportPage[]; rejected: RejectedFile[] } {
  const candidates = sources.map(candidateOf);
  const bySlug = new Map<string, Candidate[]>();
  for (const candidate of candidates) {
    // An empty slug names no page; the server explains why each such file fails.
    if (candidate.slug === '') continue;
    bySlug.set(candidate.slug, [...(bySlug.get(candidate.slug) ?? []), candidate]);
  }
  const taken = new Set(bySlug.keys());
  const rejectedPaths = new Map<string, string>();
  for (const group of bySlug.values()) {
    if (group.length === 1) continue;
    const [keeper, ...others] = group.sort((a, b) => a.folders.length - b.folders.length || (a.path < b.path ? -1 : 1));
    for (const other of others) {
      const title = other.frontmatterTitle === undefined ? uniqueTitle(other, taken) : null;
      if (title === null) {
        rejectedPaths.set(other.path, `It names the same page as ${keeper.path} ("${keeper.slug}"); give one of them another title.`);
        continue;
      }
      other.title = title;
      taken.add(pageSlug(title));
    }
  }
  return {
    pages: candidates.filter((c) => !rejectedPaths.has(c.path)).map(({ path, title, body, addedCluster }) => ({
      path, title, body, ...(addedCluster !== undefined ? { addedCluster } : {}),
    })),
    rejected: [...rejectedPaths].map(([path, reason]) => ({ path, reason })),
  };
}

function candidateOf({ relativePath, source }: VaultSource): Candidate {
  const segments = relativePath.split('/');
  const title = titleOfFileName(segments[segments.length - 1]);
  const cluster = clusterOfPath(relativePath);
  const frontmatterTitle = frontmatterTitleOf(source);
  const body = cluster ? withCluster(source, cluster) : source;
  return {
    path: relativePath,
    title,
    body,
    ...(cluster && body !== source ? { addedCluster: cluster } : {}),
    frontmatterTitle,
    slug: pageSlug((frontmatterTitle ?? title).trim()),
    folders: segments.slice(0, -1),
  };
}

function frontmatterTitleOf(source: string): string | undefined {
  try {
    return parseFrontmatter(source).frontmatter.title;
  } catch {
    return undefined;
  }
}

/** `user/index`, then `docs/user/index`, …: the shortest folder-qualified title whose slug is still free. */
function uniqueTitle(candidate: Candidate, taken: Set<string>): string | null {
  for (let depth = 1; depth <= candidate.folders.length; depth++) {
    const title = [...candidate.folders.slice(-depth), candidate.title].join('/');
    if (!taken.has(pageSlug(title))) return title;
  }
  return null;
}
