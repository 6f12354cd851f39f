import pg from 'pg';

/**
 * Test fixture (used by this folder's tests and the bench): builds the source
 * tables planning is exercised on, in plain SQL with generate_series.
 *  - public.big       plain, `rows` rows, id PK, indexed created_at, cust_id → public.cust
 *  - public.cust      1000 rows, the join's dimension table
 *  - public.events    range-partitioned on id (4 partitions + default), `partRows` rows
 */
export async function buildSourceTables(url: string, opts: { rows: number; partRows: number }): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`
      CREATE TABLE public.cust (id int PRIMARY KEY, name text NOT NULL);
      INSERT INTO public.cust SELECT g, 'customer ' || g FROM generate_series(1, 1000) g;
      CREATE TABLE public.big (
        id bigint PRIMARY KEY, cust_id int NOT NULL, created_at timestamp, amount numeric(12,2), note text);
      INSERT INTO public.big
        SELECT g, 1 + (g % 1000), timestamp '2020-01-01' + (g * interval '17 seconds'), (g % 9973) / 3.0, 'row ' || g
        FROM generate_series(1, ${opts.rows}) g;
      CREATE INDEX big_created_at_idx ON public.big (created_at);
      CREATE TABLE public.events (id bigint NOT NULL, kind text, at date) PARTITION BY RANGE (id);
      CREATE TABLE public.events_p1 PARTITION OF public.events FOR VALUES FROM (MINVALUE) TO (${Math.floor(opts.partRows / 4)});
      CREATE TABLE public.events_p2 PARTITION OF public.events FOR VALUES FROM (${Math.floor(opts.partRows / 4)}) TO (${Math.floor(opts.partRows / 2)});
      CREATE TABLE public.events_p3 PARTITION OF public.events FOR VALUES FROM (${Math.floor(opts.partRows / 2)}) TO (${Math.floor((3 * opts.partRows) / 4)});
      CREATE TABLE public.events_p4 PARTITION OF public.events FOR VALUES FROM (${Math.floor((3 * opts.partRows) / 4)}) TO (${opts.partRows});
      CREATE TABLE public.events_pdef PARTITION OF public.events DEFAULT;
      INSERT INTO public.events SELECT g, CASE WHEN g % 3 = 0 THEN 'a' ELSE 'b' END, date '2021-01-01' + (g % 1500) FROM generate_series(1, ${opts.partRows + 500}) g;
      CREATE INDEX events_id_idx ON public.events (id);
      ANALYZE public.cust; ANALYZE public.big; ANALYZE public.events;
    `);
  } finally {
    await c.end();
  }
}
