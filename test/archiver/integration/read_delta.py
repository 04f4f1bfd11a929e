"""Read a Runnel archiver Delta table with delta-rs (python `deltalake`) and pyarrow.

Usage: read_delta.py <table-uri> <json options>
options: {"storage": {...deltalake storage_options}, "app_ids": [...], "s3": {endpoint, key, secret} | null}
Prints one JSON document with rows, txn versions, add actions and Parquet facts.
"""
import base64
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable


def b64(v):
    return None if v is None else base64.b64encode(v).decode()


def main():
    uri = sys.argv[1]
    opts = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    storage = opts.get("storage") or None
    dt = DeltaTable(uri, storage_options=storage)
    tbl = dt.to_pyarrow_table()
    schema = {f.name: str(f.type) for f in tbl.schema}
    cols = {name: tbl.column(name).to_pylist() for name in tbl.column_names}
    rows = []
    for i in range(tbl.num_rows):
        ts = cols["timestamp"][i]
        rows.append([
            cols["partition"][i],
            cols["offset"][i],
            int(ts.timestamp() * 1_000_000) if ts is not None else None,
            cols["timestamp_type"][i],
            b64(cols["key"][i]),
            b64(cols["value"][i]),
            [[h["key"], b64(h["value"])] for h in (cols["headers"][i] or [])],
            str(cols["date"][i]),
        ])
    txn = {a: dt.transaction_version(a) for a in opts.get("app_ids", [])}
    adds = dt.get_add_actions(flatten=False)
    adds = pa.table(adds) if not isinstance(adds, pa.Table) else adds
    add_list = adds.to_pylist()
    files = []
    fs = None
    if opts.get("s3"):
        from pyarrow import fs as pafs
        s3 = opts["s3"]
        fs = pafs.S3FileSystem(endpoint_override=s3["endpoint"], scheme="http", access_key=s3["key"], secret_key=s3["secret"], region="us-east-1")
    for a in add_list:
        path = a["path"]
        full = (uri.rstrip("/") + "/" + path)
        if fs is not None:
            pf = pq.ParquetFile(fs.open_input_file(full.replace("s3://", "")))
        else:
            pf = pq.ParquetFile(full.replace("file://", ""))
        md = pf.metadata
        data = pf.read()
        import pyarrow.compute as pc
        actual = {
            "rows": data.num_rows,
            "min_offset": pc.min(data.column("offset")).as_py(),
            "max_offset": pc.max(data.column("offset")).as_py(),
            "min_partition": pc.min(data.column("partition")).as_py(),
            "max_partition": pc.max(data.column("partition")).as_py(),
            "min_ts": int(pc.min(data.column("timestamp")).cast(pa.int64()).as_py()),
            "max_ts": int(pc.max(data.column("timestamp")).cast(pa.int64()).as_py()),
            "key_nulls": data.column("key").null_count,
            "value_nulls": data.column("value").null_count,
        }
        # per Kafka partition: [partition, min offset, max offset, rows, min ts us, max ts us] (the runnel.partitions tag, bytes aside)
        by_part = data.select(["partition", "offset"]).append_column("ts", data.column("timestamp").cast(pa.int64())).group_by("partition").aggregate(
            [("offset", "min"), ("offset", "max"), ("offset", "count"), ("ts", "min"), ("ts", "max")]
        ).to_pylist()
        actual["partitions"] = sorted([[g["partition"], g["offset_min"], g["offset_max"], g["offset_count"], g["ts_min"], g["ts_max"]] for g in by_part])
        real_size = fs.get_file_info(full.replace("s3://", "")).size if fs is not None else __import__("os").path.getsize(full.replace("file://", ""))
        codecs = sorted({md.row_group(r).column(c).compression for r in range(md.num_row_groups) for c in range(md.num_columns)})
        files.append({
            "path": path,
            "size": a["size_bytes"],
            "num_records": a.get("num_records"),
            "partition_values": a.get("partition_values") or a.get("partition") or None,
            "codecs": codecs,
            "ts_type": str(pf.schema_arrow.field("timestamp").type),
            "columns": pf.schema_arrow.names,
            "rows": md.num_rows,
            "min": a.get("min") or None,
            "max": a.get("max") or None,
            "null_count": a.get("null_count") or None,
            "actual": actual,
            "real_size": real_size,
            "tags": a.get("tags"),
        })
    print(json.dumps({
        "version": dt.version(),
        "rows": rows,
        "schema": schema,
        "txn": txn,
        "files": files,
        "protocol": [dt.protocol().min_reader_version, dt.protocol().min_writer_version],
        "partition_columns": dt.metadata().partition_columns,
    }, default=str))


if __name__ == "__main__":
    main()
