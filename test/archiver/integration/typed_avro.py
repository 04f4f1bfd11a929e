"""Produces Avro records with confluent-kafka's AvroSerializer against Runnel's
built-in Schema Registry, for the typed lake columns test. Prints one JSON line.

usage: typed_avro.py REGISTRY_URL BOOTSTRAP TOPIC

- creates TOPIC (2 partitions) with archive.value.schema=id through the AdminClient;
- v1 records (id, qty, price decimal(10,2), sku enum, at timestamp-millis, tags
  array, attrs map) to both partitions, then v2 records (v1 + an optional `note`);
- to partition 0, two records that cannot decode: a wire-format prefix naming an
  unknown schema id, and a v1 record cut short (truncated Avro body).
Prints the ids, every record's partition/offset/fields, and the exact sum of qty.
"""
import json
import sys
import time
from decimal import Decimal

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

url, bootstrap, topic = sys.argv[1], sys.argv[2], sys.argv[3]
sr = SchemaRegistryClient({'url': url})

admin = AdminClient({'bootstrap.servers': bootstrap})
admin.create_topics([NewTopic(topic, 2, 1, config={'archive.value.schema': 'id'})])[topic].result(30)

FIELDS = [
    {'name': 'id', 'type': 'long'},
    {'name': 'qty', 'type': 'long'},
    {'name': 'price', 'type': {'type': 'bytes', 'logicalType': 'decimal', 'precision': 10, 'scale': 2}},
    {'name': 'sku', 'type': {'type': 'enum', 'name': 'Sku', 'symbols': ['APPLE', 'PEAR']}},
    {'name': 'at', 'type': {'type': 'long', 'logicalType': 'timestamp-millis'}},
    {'name': 'tags', 'type': {'type': 'array', 'items': 'string'}},
    {'name': 'attrs', 'type': {'type': 'map', 'values': 'int'}},
]
V1 = {'type': 'record', 'name': 'Order', 'namespace': 'com.acme', 'fields': FIELDS}
V2 = {**V1, 'fields': FIELDS + [{'name': 'note', 'type': ['null', 'string'], 'default': None}]}

producer = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 5})
ctx = SerializationContext(topic, MessageField.VALUE)
delivered = []


def on_delivery(err, msg):
    if err is not None:
        raise SystemExit(f'delivery failed: {err}')
    delivered.append((msg.partition(), msg.offset()))


records = []
AT = 1767225600000  # 2026-01-01T00:00:00Z
n = 0
for version, schema in ((1, V1), (2, V2)):
    if version == 2:
        time.sleep(1.5)  # the v1 records are committed first: the v2 column then arrives by a later commit's metaData
    ser = AvroSerializer(sr, json.dumps(schema))  # auto.register.schemas: registers on first use
    for i in range(6):
        n += 1
        row = {'id': 2**60 + n, 'qty': 1000 * n + 7, 'price': Decimal(f'{n}.{n:02d}'), 'sku': 'APPLE' if n % 2 else 'PEAR',
               'at': AT + n, 'tags': [f't{n}'], 'attrs': {'n': n}}
        if version == 2:
            row['note'] = None if i == 0 else f'note {n}'
        p = n % 2
        producer.produce(topic, value=ser(row, ctx), partition=p, on_delivery=on_delivery)
        producer.flush(30)
        records.append({'partition': p, 'offset': delivered[-1][1], 'version': version,
                        'row': {**row, 'price': str(row['price'])}})

good = AvroSerializer(sr, json.dumps(V1))(
    {'id': 1, 'qty': 1, 'price': Decimal('1.00'), 'sku': 'APPLE', 'at': AT, 'tags': [], 'attrs': {}}, ctx)
bad = {
    'unknown_id': b'\x00' + (987654).to_bytes(4, 'big') + good[5:],
    'truncated': good[:8],
}
for name, value in bad.items():
    producer.produce(topic, value=value, partition=0, on_delivery=on_delivery)
    producer.flush(30)
    records.append({'partition': 0, 'offset': delivered[-1][1], 'bad': name})

versions = sr.get_versions(topic + '-value')
print(json.dumps({
    'ids': [sr.get_version(topic + '-value', v).schema_id for v in versions],
    'records': records,
    'sum_qty': sum(r['row']['qty'] for r in records if 'row' in r),
}))
