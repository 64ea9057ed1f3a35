/**
 * The wiki's corpus statistics as search ranks by them (BM25's N and avgdl): `n`, the live pages, and `avgdl`, their
 * average length in words (at least 1). Summed over the rows of page_search_totals (at most 64, one per connection
 * that changed them; migration 0037), which a trigger keeps in step with page_search_stats (one row per live page) in
 * every page write's transaction: the values a count and an average over page_search_stats give, without reading a
 * row per page. Search ranks by them, and extraction counts the wiki's pages by them.
 */
export const SEARCH_CORPUS = `SELECT coalesce(sum(t.pages), 0)::bigint AS n, greatest(sum(t.length) / nullif(sum(t.pages), 0), 1) AS avgdl FROM page_search_totals t`;
