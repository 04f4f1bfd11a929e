// ~90 B Avro orders in the Confluent wire format (magic 0, schema id 1, Avro body):
// the records of the typed-columns benchmarks (typed-micro.mjs, bench.mjs --avro).
import avro from 'avsc';

export const ORDER_SCHEMA = {
  type: 'record', name: 'Order', namespace: 'bench', fields: [
    { name: 'id', type: 'long' },
    { name: 'user', type: 'string' },
    { name: 'sku', type: 'string' },
    { name: 'qty', type: 'int' },
    { name: 'price', type: 'double' },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'SHIPPED'] } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'tags', type: { type: 'array', items: 'string' } },
  ],
};
/** The schema id the values name. */
export const ORDER_SCHEMA_ID = 1;
const type = avro.Type.forSchema(ORDER_SCHEMA);
const prefix = Buffer.from([0, 0, 0, 0, ORDER_SCHEMA_ID]);

/** Order n (its time ts0 + n) as a wire-format value. */
export function orderValue(n, ts0) {
  const body = type.toBuffer({
    id: n, user: `user-${n % 9973}`, sku: `SKU-${(n % 131).toString().padStart(5, '0')}`, qty: n % 17, price: (n % 1000) / 10,
    status: ['NEW', 'PAID', 'SHIPPED'][n % 3], at: ts0 + n, note: n % 4 ? `a note on order number ${n % 1000}, gift wrap ${n % 2 ? 'yes' : 'no'}` : null, tags: ['web', `c${n % 7}`, 'x'],
  });
  return Buffer.concat([prefix, body]);
}
