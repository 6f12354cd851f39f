-- Iceberg REST catalog: a token may be allowed (by an admin, at creation) to receive the
-- warehouse's object-store secrets in the catalog's config and loadTable answers.
ALTER TABLE public.api_tokens ADD COLUMN vend_credentials boolean NOT NULL DEFAULT false;
