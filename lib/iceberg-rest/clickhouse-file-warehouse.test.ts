import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { batchOf } from '../lake/test-helpers';
import { chdbChild } from './test-chdb';
import { useServedCatalog } from '../testing/served-catalog';

// ClickHouse's DataLakeCatalog over Tributary's REST catalog on a file:// warehouse. ClickHouse (chdb 26.7)
// asks for storage credentials for every REST table unless `vended_credentials = 0`, and a REST catalog has
// none to vend for local files: with the default it refuses (recorded below); with `vended_credentials = 0`
// it reads the folder itself, which must lie inside ClickHouse's user_files (chdb: its working directory).
const fx = useServedCatalog({
  tokenName: 'clickhouse',
  fill: async (lake) => {
    const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('name', new arrow.Utf8(), true)]);
    const t = await lake.createTable('etl.customers', { schema });
    for (const [from, n] of [[0, 70], [70, 50]]) await t.append([batchOf(schema, Array.from({ length: n }, (_, i) => ({ id: BigInt(from + i), name: `c${from + i}` })))]);
  },
});

describe('ClickHouse DataLakeCatalog on a file:// warehouse', () => {
  const attach = (name: string, extra: string) => `CREATE DATABASE ${name} ENGINE = DataLakeCatalog('${fx.url}/v1')
    SETTINGS catalog_type = 'rest', warehouse = 'tributary', auth_header = 'Authorization: Bearer ${fx.token}'${extra}`;

  it('counts the rows with vended_credentials = 0', async () => {
    const [tables, rows] = await chdbChild(
      ['SET allow_experimental_database_iceberg = 1', attach('lake', ', vended_credentials = 0')],
      ['SHOW TABLES FROM lake', 'SELECT count() AS n, toString(sum(id)) AS s FROM lake.`etl.customers`'],
    );
    expect(tables).toEqual([{ name: 'etl.customers' }]);
    expect(rows).toEqual([{ n: 120, s: String((119 * 120) / 2) }]);
  }, 60_000);

  it('with the default vended_credentials = 1 ClickHouse lists the table but refuses to read it (recorded finding)', async () => {
    const [tables] = await chdbChild(['SET allow_experimental_database_iceberg = 1', attach('lake', '')], ['SHOW TABLES FROM lake']);
    expect(tables).toEqual([{ name: 'etl.customers' }]);
    const err = await chdbChild(['SET allow_experimental_database_iceberg = 1', attach('lake', '')], ['SELECT count() FROM lake.`etl.customers`'])
      .then(() => null, (e: Error) => e.message);
    // if a ClickHouse upgrade stops asking for credentials for local files, this fails: drop the workaround from the README
    expect(err).toMatch(/Either vended credentials need to be enabled or storage credentials need to be specified/);
  }, 60_000);
});
