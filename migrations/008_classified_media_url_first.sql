-- The unique media-URL index led with (environment, agency_id). Under row-level security the
-- planner cannot estimate current_setting() comparisons, so it took that prefix for a selective
-- one and scanned every media row of the agency to find one classified's media (5 ms at 13k
-- rows, growing with the table) instead of using the primary key. With the URL first the index
-- still enforces one URL per environment and agency and serves URL lookups, and offers no such
-- prefix to misuse.
DROP INDEX classified_media_url;
CREATE UNIQUE INDEX classified_media_url ON classified_media (url, environment, agency_id);
