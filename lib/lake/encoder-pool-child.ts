// Child process of encoder-pool.test.ts: a process whose only work is awaiting the shared pool's
// files (no database, no timer). Prints each file's size; must exit 0 by itself.
import * as arrow from 'apache-arrow';
import { lakeEncoders } from './encoder-pool';

const n = 200_000;
const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false)]);
const ids = arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i)) });
const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, nullCount: 0, children: [ids] }));
for (let round = 0; round < 2; round++) {
  const bytes = await lakeEncoders().encode(schema, [batch], { compression: 'zstd', rowGroupRows: 65_536 }, 50_000);
  console.log('bytes', bytes.length);
}
