"""Reads a typed Runnel lake table with delta-rs (python `deltalake`) and Polars.

usage: typed_read.py TABLE_URI
Prints one JSON line: the Delta schema (name -> type), every row's partition,
offset, typed fields and decode_error, and Polars SQL results over the table.
"""
import json
import sys

import polars as pl
from deltalake import DeltaTable

uri = sys.argv[1]
dt = DeltaTable(uri)
schema = {f.name: str(f.type) for f in dt.schema().fields}
# the same version delta-rs loaded: a commit landing between two loads would pair one version's
# schema with another's rows
df = pl.read_delta(uri, version=dt.version())
ctx = pl.SQLContext(t=df)
sql = ctx.execute(
    "SELECT sum(qty) AS sum_qty, count(*) AS rows, count(note) AS notes, sum(price) AS sum_price "
    "FROM t WHERE decode_error IS NULL", eager=True).to_dicts()[0] if 'qty' in df.columns else {}
bad = ctx.execute("SELECT partition, \"offset\", decode_error FROM t WHERE decode_error IS NOT NULL ORDER BY \"offset\"", eager=True).to_dicts() if 'decode_error' in df.columns else []
rows = []
for r in df.sort(['partition', 'offset']).to_dicts():
    rows.append({
        'partition': r['partition'], 'offset': r['offset'], 'id': r.get('id'), 'qty': r.get('qty'),
        'price': None if r.get('price') is None else str(r['price']), 'sku': r.get('sku'),
        'at_us': None if r.get('at') is None else round(r['at'].timestamp() * 1_000_000), 'at_tz': None if r.get('at') is None else str(r['at'].tzinfo), 'tags': r.get('tags'),
        'attrs': r.get('attrs'), 'note': r.get('note'), 'decode_error': r.get('decode_error'),
        'value_len': None if r['value'] is None else len(r['value']), 'n': r.get('n'),
    })
print(json.dumps({
    'schema': schema, 'polars': {k: str(v) for k, v in df.schema.items()}, 'rows': rows,
    'sql': {k: (str(v) if v is not None and not isinstance(v, int) else v) for k, v in sql.items()}, 'bad': bad,
    'version': dt.version(),
}, default=str))
