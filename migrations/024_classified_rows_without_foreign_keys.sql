-- What belongs to a classified (its revisions, media, statuses and work row) no longer refers to it
-- by foreign key. Each of those keys checked every row inserted against the classified and locked
-- the classified's row for it (FOR KEY SHARE): nine checks and locks per POST of a classified with
-- six media. On the bench (`post`, embedded PostgreSQL) PostgreSQL spent 469-490 µs of CPU per
-- POST with them and 389 without.
--
-- What the keys guarded is kept by the statements themselves: every statement that inserts such a
-- row does so for a classified it has just inserted (the create statement, from the rows its
-- INSERT returned) or holds locked (updates and deletes lock their classified first, processing
-- writes their group's: the lock order of src/platform/db/locks.ts), and a classified is removed
-- only DELIVERY_RETENTION_DAYS after its deletion was processed (retention), when nothing writes
-- for it any more.
-- Removing a classified still removes what belongs to it, as ON DELETE CASCADE did, through the
-- trigger below, in the lock order: revisions, media and statuses, then the work row.
ALTER TABLE classified_revisions DROP CONSTRAINT classified_revisions_classified_id_fkey;
ALTER TABLE classified_media DROP CONSTRAINT classified_media_classified_id_fkey;
ALTER TABLE classified_statuses DROP CONSTRAINT classified_statuses_classified_id_fkey;
ALTER TABLE caas_processing_queue DROP CONSTRAINT caas_processing_queue_classified_id_fkey;

CREATE FUNCTION immogate_remove_classified_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM classified_revisions WHERE classified_id IN (SELECT id FROM removed);
  DELETE FROM classified_media WHERE classified_id IN (SELECT id FROM removed);
  DELETE FROM classified_statuses WHERE classified_id IN (SELECT id FROM removed);
  DELETE FROM caas_processing_queue WHERE classified_id IN (SELECT id FROM removed);
  RETURN NULL;
END
$$;
CREATE TRIGGER classifieds_removed AFTER DELETE ON classifieds
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION immogate_remove_classified_rows();
