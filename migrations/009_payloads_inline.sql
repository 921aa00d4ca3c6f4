-- A classified payload is about 5 KB. Over toast_tuple_target (2 KB by default) PostgreSQL
-- compresses it with pglz and still moves it out of line into the TOAST table: on the bench the
-- compression alone was the largest single item of the database's CPU per POST (about 9%, perf),
-- and each payload cost TOAST rows and index entries besides. Rows of up to a page now stay
-- whole and uncompressed; larger ones are compressed and moved out as before.
ALTER TABLE classifieds SET (toast_tuple_target = 8160);
ALTER TABLE classified_revisions SET (toast_tuple_target = 8160);
