import pg from 'pg';

/**
 * Branch source fixtures for tests and the bench: one Postgres database per
 * branch with the shapes the engine must handle — two masters, two
 * transactions tables, a helper-driven child (order lines → orders), a
 * subquery source, one branch with an extra column and a wider decimal, and a
 * Julian date column.
 */
export const FIXTURE_TABLES = [
  { table: 'OASIS.CUSTOMERS', unique_key: 'CUSTOMER_ID', cdc_column: 'UPDATED_AT', where_date_column: null, category: 'masters' },
  { table: 'OASIS.PRODUCTS', unique_key: ['PRODUCT_ID'], cdc_column: 'UPDATED_AT', category: 'masters' },
  {
    table: 'OASIS.ORDERS', unique_key: 'ORDER_ID', cdc_column: 'AMEND_LAST_DATE', where_date_column: 'ORDER_DATE',
    where_operator: '>=', where_value_of_initial_run: '2024-01-01', category: 'transactions',
  },
  {
    table: 'OASIS.APPOINTMENTS', unique_key: 'APPT_ID', cdc_column: 'UPDATED_AT', where_date_column: 'JULIAN_DATE',
    where_operator: '>=', where_value_of_initial_run: '2024-01-01', category: 'transactions',
  },
  {
    table: 'OASIS.ORDER_LINES', unique_key: ['ORDER_ID', 'LINE_NO'], cdc_column: null, where_date_column: null,
    where_operator: '>=', where_value_of_initial_run: '2024-01-01', category: 'transactions',
    helper: { table: 'OASIS.ORDERS', join: [['ORDER_ID', 'ORDER_ID']], cdc_column: 'AMEND_LAST_DATE', where_date_column: 'ORDER_DATE' },
  },
  {
    table: '(SELECT o.ORDER_ID, o.AMEND_LAST_DATE, o.ORDER_DATE, c.BALANCE AS CUSTOMER_BALANCE FROM OASIS.ORDERS o JOIN OASIS.CUSTOMERS c ON c.CUSTOMER_ID = o.CUSTOMER_ID)',
    name: 'orders_enriched', unique_key: 'ORDER_ID', cdc_column: 'AMEND_LAST_DATE', where_date_column: 'ORDER_DATE', category: 'transactions',
  },
];

export interface FixtureOptions {
  /** Branch index (0-based): index 2 gets the extra column and the wider decimal. */
  index: number;
  customers?: number;
  orders?: number;
}

/** Create the schema and rows of one branch. Rows before 2024 are outside the INITIAL range. */
export async function seedBranch(url: string, o: FixtureOptions): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const wide = o.index === 2;
  const nc = o.customers ?? 50;
  const no = o.orders ?? 200;
  try {
    await c.query(`
      CREATE SCHEMA oasis;
      CREATE TABLE oasis.customers (customer_id int8 PRIMARY KEY, name text NOT NULL, balance numeric(${wide ? '14,4' : '12,2'}), ${wide ? 'email varchar(80),' : ''} updated_at timestamp NOT NULL);
      CREATE TABLE oasis.products (product_id int4 PRIMARY KEY, title varchar(60), price float8, active bool, code uuid, attrs jsonb, photo bytea, updated_at timestamptz NOT NULL);
      CREATE TABLE oasis.orders (order_id int8 PRIMARY KEY, customer_id int8 NOT NULL, amount numeric(12,2), order_date date NOT NULL, amend_last_date timestamp NOT NULL, note text);
      CREATE TABLE oasis.order_lines (order_id int8 NOT NULL, line_no int2 NOT NULL, qty int4, price numeric(10,2), PRIMARY KEY (order_id, line_no));
      CREATE TABLE oasis.appointments (appt_id int4 PRIMARY KEY, julian_date int4 NOT NULL, status varchar(20), updated_at timestamp NOT NULL);
    `);
    const b = o.index;
    await c.query(`INSERT INTO oasis.customers SELECT g, 'customer ' || $1::int || '-' || g, round((g * 37.25 + $1::int)::numeric, 2), ${wide ? "'c' || g || '@example.org'," : ''}
      timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, $2::int) g`, [b, nc]);
    await c.query(`INSERT INTO oasis.products SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'product ' || g END, g * 1.5, g % 2 = 0,
      md5(g::text || $1::text)::uuid, jsonb_build_object('g', g), decode(lpad(to_hex(g), 4, '0'), 'hex'),
      timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour' FROM generate_series(1, 20) g`, [b]);
    // orders: a few before the INITIAL range (2023), the rest from 2024
    await c.query(`INSERT INTO oasis.orders SELECT g, 1 + g % $2::int, round((g * 3.17 + $1::int)::numeric, 2), date '2023-12-25' + (g / 4),
      timestamp '2023-12-25 08:00' + (g / 4) * interval '1 day' + g * interval '1 second', CASE WHEN g % 5 = 0 THEN NULL ELSE 'note ' || g END
      FROM generate_series(1, $3::int) g`, [b, nc, no]);
    await c.query(`INSERT INTO oasis.order_lines SELECT o.order_id, l, l * 2, round((o.order_id % 50 + l)::numeric, 2) FROM oasis.orders o, generate_series(1, 2) l`);
    // Julian day 2460311 = 2024-01-01
    await c.query(`INSERT INTO oasis.appointments SELECT g, 2460300 + g / 3, CASE WHEN g % 3 = 0 THEN 'DONE' ELSE 'OPEN' END, timestamp '2024-01-01' + g * interval '1 minute'
      FROM generate_series(1, $1::int) g`, [Math.floor(no / 2)]);
  } finally { await c.end(); }
}

/** Changes at a source for an INCREMENTAL run: updates (cdc moves) and inserts. */
export async function changeBranch(url: string, o: { index: number; orders?: number; customers?: number }): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const no = o.orders ?? 200;
  const nc = o.customers ?? 50;
  try {
    await c.query(`UPDATE oasis.customers SET name = name || ' (upd)', updated_at = timestamp '2025-06-01' WHERE customer_id % 10 = 1`);
    await c.query(`INSERT INTO oasis.customers (customer_id, name, balance, updated_at) SELECT g, 'new customer ' || g, 1.5, timestamp '2025-06-01' FROM generate_series($1::int + 1, $1::int + 3) g`, [nc]);
    await c.query(`UPDATE oasis.products SET price = price + 1, updated_at = timestamptz '2025-06-01 00:00:00+00' WHERE product_id <= 2`);
    await c.query(`UPDATE oasis.orders SET amount = amount + 100, amend_last_date = timestamp '2025-06-01 12:00' WHERE order_id % 20 = 3`);
    await c.query(`INSERT INTO oasis.orders SELECT g, 1, 9.99, date '2025-06-02', timestamp '2025-06-02 09:00', 'late order' FROM generate_series($1::int + 1, $1::int + 5) g`, [no]);
    await c.query(`INSERT INTO oasis.order_lines SELECT g, 1, 1, 9.99 FROM generate_series($1::int + 1, $1::int + 5) g`, [no]);
    await c.query(`UPDATE oasis.order_lines SET qty = qty + 10 WHERE order_id % 20 = 3`);
    await c.query(`UPDATE oasis.appointments SET status = 'MOVED', updated_at = timestamp '2025-06-01' WHERE appt_id % 10 = 7`);
    await c.query(`INSERT INTO oasis.appointments SELECT g, 2460828, 'NEW', timestamp '2025-06-01' FROM generate_series($1::int + 1, $1::int + 4) g`, [Math.floor(no / 2)]);
  } finally { await c.end(); }
}

/** Run one statement on a branch database (its own short-lived connection); the rows. */
export async function queryBranch(url: string, text: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { return (await c.query(text)).rows; } finally { await c.end(); }
}
