/**
 * The `extractor` of proposals that come from outside the wiki's pages: a graph file (the import of
 * /admin/knowledge-graph/import, `kurate kg import`) or an agent (the MCP tool propose_knowledge). Such a proposal has
 * no page support by nature, where an extracted one always has some (the consistency check tells them apart).
 */
export const FILE_SOURCE = 'import';
export const AGENT_SOURCE = 'agent';
export const SOURCES_WITHOUT_PAGES = [FILE_SOURCE, AGENT_SOURCE] as const;
export type SourceWithoutPages = (typeof SOURCES_WITHOUT_PAGES)[number];
