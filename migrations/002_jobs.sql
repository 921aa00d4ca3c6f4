-- Kept so that migration numbers stay in step: the function it created, a door into graphile-worker,
-- is gone since 010 moved work into our own tables.
SELECT 1;
