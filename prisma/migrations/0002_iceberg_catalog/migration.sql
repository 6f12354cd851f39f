-- Iceberg SQL catalog, in the exact layout of pyiceberg's SqlCatalog and
-- Iceberg's JdbcCatalog (V1 schema with iceberg_type), so those tools can open
-- the same lake by pointing at this database.
CREATE TABLE IF NOT EXISTS public.iceberg_tables (
  catalog_name varchar(255) NOT NULL,
  table_namespace varchar(255) NOT NULL,
  table_name varchar(255) NOT NULL,
  metadata_location varchar(1000),
  previous_metadata_location varchar(1000),
  iceberg_type varchar(5),
  PRIMARY KEY (catalog_name, table_namespace, table_name)
);

CREATE TABLE IF NOT EXISTS public.iceberg_namespace_properties (
  catalog_name varchar(255) NOT NULL,
  namespace varchar(255) NOT NULL,
  property_key varchar(255) NOT NULL,
  property_value varchar(1000),
  PRIMARY KEY (catalog_name, namespace, property_key)
);
