import pg from 'pg';

/**
 * A branch database with what PostgreSQL's Pagila sample has that trips
 * loaders: a range-partitioned table (payment), an enum (mpaa_rating), a domain
 * over int (year), `text[]` and `int[]` with NULL elements and PostgreSQL
 * array-syntax characters, `tsvector`, `bytea` with 00/FF bytes, `timestamptz`
 * written from a non-UTC session, sub-second timestamps, and a composite key
 * holding a timestamp; and what Pagila 4 (for PostgreSQL 18) added: a `uuid`
 * column filled by `uuidv7()` and a VIRTUAL generated column (computed when
 * read: the lake holds its values). Written here (Pagila's own dump is not
 * vendored), with Pagila's names and types.
 */
export const PAGILA_TABLES = [
  { table: 'PAGILA.FILM', unique_key: 'film_id', cdc_column: 'last_update', category: 'masters' },
  { table: 'PAGILA.PAYMENT', unique_key: ['payment_id', 'payment_date'], cdc_column: 'payment_date', category: 'transactions' },
  { table: 'PAGILA.RENTAL', unique_key: 'rental_id', cdc_column: 'last_update', category: 'transactions' },
];

export async function seedPagila(url: string, branch: number): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // the session writes timestamptz values in São Paulo time: the lake must hold the same instants
    await c.query(`SET TIME ZONE 'America/Sao_Paulo'`);
    await c.query(`
      CREATE SCHEMA pagila;
      CREATE TYPE pagila.mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17');
      CREATE DOMAIN pagila.year AS integer CONSTRAINT year_check CHECK (VALUE >= 1901 AND VALUE <= 2155);
      CREATE TABLE pagila.film (
        film_id serial PRIMARY KEY, title text NOT NULL, release_year pagila.year, rating pagila.mpaa_rating DEFAULT 'G',
        special_features text[], scores int[], fulltext tsvector, poster bytea, rental_rate numeric(4,2),
        last_update timestamptz NOT NULL DEFAULT now(), length smallint,
        length_hours numeric(4,2) GENERATED ALWAYS AS (round(length / 60.0, 2)) VIRTUAL);
      CREATE TABLE pagila.payment (payment_id serial, customer_id int NOT NULL, amount numeric(5,2) NOT NULL, payment_date timestamptz NOT NULL,
        uuid uuid DEFAULT uuidv7() NOT NULL, PRIMARY KEY (payment_date, payment_id)) PARTITION BY RANGE (payment_date);
      CREATE TABLE pagila.payment_p2022_01 PARTITION OF pagila.payment FOR VALUES FROM ('2022-01-01 00:00:00+00') TO ('2022-02-01 00:00:00+00');
      CREATE TABLE pagila.payment_p2022_02 PARTITION OF pagila.payment FOR VALUES FROM ('2022-02-01 00:00:00+00') TO ('2022-03-01 00:00:00+00');
      CREATE TABLE pagila.rental (rental_id int PRIMARY KEY, rental_date timestamp NOT NULL, return_date timestamp, last_update timestamp NOT NULL, "ReturnNote" text);
    `);
    await c.query(`
      INSERT INTO pagila.film (title, release_year, rating, special_features, scores, fulltext, poster, rental_rate, last_update, length) VALUES
        ('ACADEMY DINOSAUR', 2006, 'PG', '{Trailers,NULL,"a{b}c","Deleted Scenes","with \\"quote\\"",""}', '{1,NULL,-3}', to_tsvector('english', 'A Epic Drama of a Feminist'), '\\x00ff00ff', 0.99, '2022-02-15 09:57:20.123456-03', 86),
        ('ACE GOLDFINGER', NULL, 'NC-17', NULL, '{}', NULL, '\\x', 4.99, '2022-02-15 09:57:21', NULL),
        ('ADAPTATION HOLES', 1901, NULL, '{NULL}', '{NULL,NULL}', to_tsvector('simple', 'it''s {odd}'), NULL, NULL, '2022-02-15 09:57:22.5', 50),
        ('B${branch} ONLY', 2155, 'R', '{Commentaries}', '{${branch}}', NULL, '\\xff', 2.99, '2022-02-15 09:57:23', 185);
      INSERT INTO pagila.payment (customer_id, amount, payment_date)
        SELECT g % 7, (g % 10) + 0.99, timestamptz '2022-01-20 12:00:00.000001+00' + g * interval '1 day 1.5 second' FROM generate_series(1, 30) g;
      INSERT INTO pagila.rental VALUES
        (1, '2022-05-24 22:53:30.999999', '2022-05-26 22:04:30.4', '2022-06-16 02:30:53.000001', 'late'),
        (2, '2022-05-24 22:54:33', NULL, '2022-06-16 02:30:53', NULL),
        (3, '1999-12-31 23:59:59.5', '2000-01-01 00:00:00', '2022-06-16 02:30:54', 'ok');
    `);
  } finally { await c.end(); }
}
