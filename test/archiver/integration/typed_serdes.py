"""Produces Protobuf or JSON Schema records with confluent-kafka's
ProtobufSerializer / JSONSerializer against Runnel's built-in Schema Registry,
for the typed lake columns test (the Protobuf and JSON twin of typed_avro.py,
with the same fields, so typed_read.py reads all three). Prints one JSON line.

usage: typed_serdes.py protobuf|json REGISTRY_URL BOOTSTRAP TOPIC

- creates TOPIC (2 partitions) with archive.value.schema=id;
- v1 records (id int64, qty int64, price double, sku enum / string, at
  Timestamp / date-time, tags list, attrs map) to both partitions, then v2
  records (v1 + an optional `note`);
- an incompatible v3 (qty becomes a string) must be refused;
- to partition 0, a wire-format prefix naming an unknown schema id, and a v1
  record cut short.
Protobuf message classes are built at run time from descriptors (no protoc).
"""
import json
import sys
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext

fmt, url, bootstrap, topic = sys.argv[1:5]
sr = SchemaRegistryClient({'url': url})
admin = AdminClient({'bootstrap.servers': bootstrap})
admin.create_topics([NewTopic(topic, 2, 1, config={'archive.value.schema': 'id'})])[topic].result(30)
ctx = SerializationContext(topic, MessageField.VALUE)
AT = 1767225600000  # 2026-01-01T00:00:00Z, in ms

if fmt == 'protobuf':
    import base64
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2
    F = descriptor_pb2.FieldDescriptorProto

    def order_class(version, qty_type=F.TYPE_INT64):
        """acme.Order v1 (v2: + optional string note), and its FileDescriptorProto."""
        fdp = descriptor_pb2.FileDescriptorProto(name='order.proto', package='acme', syntax='proto3',
                                                 dependency=['google/protobuf/timestamp.proto'])
        sku = fdp.enum_type.add(name='Sku')
        sku.value.add(name='APPLE', number=0)
        sku.value.add(name='PEAR', number=1)
        m = fdp.message_type.add(name='Order')
        entry = m.nested_type.add(name='AttrsEntry')
        entry.options.map_entry = True
        entry.field.add(name='key', number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL, json_name='key')
        entry.field.add(name='value', number=2, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL, json_name='value')
        opt = F.LABEL_OPTIONAL
        for number, name, kind, extra in ((1, 'id', F.TYPE_INT64, {}), (2, 'qty', qty_type, {}), (3, 'price', F.TYPE_DOUBLE, {}),
                                          (4, 'sku', F.TYPE_ENUM, {'type_name': '.acme.Sku'}),
                                          (5, 'at', F.TYPE_MESSAGE, {'type_name': '.google.protobuf.Timestamp'}),
                                          (6, 'tags', F.TYPE_STRING, {'label': F.LABEL_REPEATED}),
                                          (7, 'attrs', F.TYPE_MESSAGE, {'label': F.LABEL_REPEATED, 'type_name': '.acme.Order.AttrsEntry'})):
            m.field.add(name=name, number=number, type=kind, json_name=name, **{'label': opt, **extra})
        if version >= 2:  # proto3 `optional string note = 8;`: a synthetic oneof
            m.oneof_decl.add(name='_note')
            m.field.add(name='note', number=8, type=F.TYPE_STRING, label=opt, json_name='note', proto3_optional=True, oneof_index=0)
        pool = descriptor_pool.DescriptorPool()
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(timestamp_pb2.DESCRIPTOR.serialized_pb))
        pool.Add(fdp)
        return fdp, message_factory.GetMessageClass(pool.FindMessageTypeByName('acme.Order'))

    classes = {v: order_class(v)[1] for v in (1, 2)}

    def serializer(version):
        cls = classes[version]
        ser = ProtobufSerializer(cls, sr, {'use.deprecated.format': False})

        def encode(row):
            msg = cls(id=row['id'], qty=row['qty'], price=row['price'], sku=row['sku'], tags=row['tags'], attrs=row['attrs'])
            msg.at.FromMilliseconds(row['at'])
            if row.get('note') is not None:
                msg.note = row['note']
            return ser(msg, ctx)
        return encode

    incompatible = Schema(base64.b64encode(order_class(2, F.TYPE_STRING)[0].SerializeToString()).decode('ascii'), 'PROTOBUF')
else:
    from datetime import datetime, timezone
    from confluent_kafka.schema_registry.json_schema import JSONSerializer
    PROPS = {'id': {'type': 'integer'}, 'qty': {'type': 'integer'}, 'price': {'type': 'number'},
             'sku': {'type': 'string', 'enum': ['APPLE', 'PEAR']}, 'at': {'type': 'string', 'format': 'date-time'},
             'tags': {'type': 'array', 'items': {'type': 'string'}}, 'attrs': {'type': 'object', 'additionalProperties': {'type': 'integer'}}}
    V1 = {'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'Order', 'type': 'object', 'properties': PROPS,
          'required': list(PROPS), 'additionalProperties': False}
    V2 = {**V1, 'properties': {**PROPS, 'note': {'type': ['string', 'null']}}}
    V3 = {**V2, 'properties': {**V2['properties'], 'qty': {'type': 'string'}}}

    def serializer(version):
        ser = JSONSerializer(json.dumps(V1 if version == 1 else V2), sr)

        def encode(row):
            doc = {**row, 'at': datetime.fromtimestamp(row['at'] / 1000, timezone.utc).isoformat().replace('+00:00', 'Z')}
            if version == 1:
                doc.pop('note', None)
            return ser(doc, ctx)
        return encode

    incompatible = Schema(json.dumps(V3), 'JSON')

producer = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 5})
delivered = []


def on_delivery(err, msg):
    if err is not None:
        raise SystemExit(f'delivery failed: {err}')
    delivered.append((msg.partition(), msg.offset()))


records = []
n = 0
for version in (1, 2):
    if version == 2:
        time.sleep(1.5)  # the v1 records are committed first: the v2 column then arrives by a later commit's metaData
    encode = serializer(version)
    for i in range(6):
        n += 1
        row = {'id': 2**50 + n, 'qty': 1000 * n + 7, 'price': n + n / 100, 'sku': 'APPLE' if n % 2 else 'PEAR',
               'at': AT + n, 'tags': [f't{n}'], 'attrs': {'n': n}}
        if version == 2:
            row['note'] = None if i == 0 else f'note {n}'
        p = n % 2
        producer.produce(topic, value=encode(row), partition=p, on_delivery=on_delivery)
        producer.flush(30)
        records.append({'partition': p, 'offset': delivered[-1][1], 'version': version, 'row': row})

try:
    sr.register_schema(topic + '-value', incompatible)
    v3 = 'registered'
except SchemaRegistryError as e:
    v3 = e.http_status_code

good = serializer(1)({'id': 2**50, 'qty': 1, 'price': 1.0, 'sku': 'APPLE', 'at': AT, 'tags': ['a'], 'attrs': {}})
bad = {
    'unknown_id': b'\x00' + (987654).to_bytes(4, 'big') + good[5:],
    'truncated': good[:9],
}
for name, value in bad.items():
    producer.produce(topic, value=value, partition=0, on_delivery=on_delivery)
    producer.flush(30)
    records.append({'partition': 0, 'offset': delivered[-1][1], 'bad': name})

versions = sr.get_versions(topic + '-value')
print(json.dumps({
    'ids': [sr.get_version(topic + '-value', v).schema_id for v in versions],
    'types': [sr.get_version(topic + '-value', v).schema.schema_type for v in versions],
    'v3': v3,
    'records': records,
    'sum_qty': sum(r['row']['qty'] for r in records if 'row' in r),
}))
