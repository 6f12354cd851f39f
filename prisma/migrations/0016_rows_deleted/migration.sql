-- Issue 21: rows a unit deleted in the lake (tables.json `deletes: detect`: hard deletes, or rows
-- stamped in `_deleted_at` with `soft_delete: true`). 0 for every earlier run and for `deletes: ignore`.
ALTER TABLE etl_meta.etl_run_log ADD COLUMN rows_deleted bigint NOT NULL DEFAULT 0;
