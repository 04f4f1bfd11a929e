"""confluent-kafka's ProtobufSerializer and ProtobufDeserializer against
Runnel's built-in Schema Registry. Prints one JSON summary line.

usage: protobuf_serde.py REGISTRY_URL BOOTSTRAP TOPIC

The message classes are built at run time from descriptors (no protoc). The
serializer registers v1 and an evolved v2 (a new field) of the topic's value
subject, as base64 FileDescriptorProtos, while producing records with each;
an incompatible v3 (a field's type changed) must be refused; the
deserializer reads every record back into the v2 class.
"""
import base64
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

url, bootstrap, topic = sys.argv[1], sys.argv[2], sys.argv[3]
subject = topic + '-value'
sr = SchemaRegistryClient({'url': url})
F = descriptor_pb2.FieldDescriptorProto


def payment(fields):
    """The FileDescriptorProto of acme.Payment with `fields` [(name, type)] numbered 1.., and its message class."""
    fdp = descriptor_pb2.FileDescriptorProto(name='payment.proto', package='acme', syntax='proto3')
    m = fdp.message_type.add(name='Payment')
    for number, (name, kind) in enumerate(fields, 1):
        m.field.add(name=name, number=number, type=kind, label=F.LABEL_OPTIONAL, json_name=name)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return fdp, message_factory.GetMessageClass(pool.FindMessageTypeByName('acme.Payment'))


_, V1 = payment([('id', F.TYPE_INT64), ('amount', F.TYPE_DOUBLE)])
_, V2 = payment([('id', F.TYPE_INT64), ('amount', F.TYPE_DOUBLE), ('note', F.TYPE_STRING)])
v3_fdp, _ = payment([('id', F.TYPE_INT64), ('amount', F.TYPE_STRING)])

out = {}
producer = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 5})
ctx = SerializationContext(topic, MessageField.VALUE)
conf = {'use.deprecated.format': False}
rows = [(V1, V1(id=1, amount=1.5)), (V1, V1(id=2, amount=2.25)), (V2, V2(id=3, amount=3.0, note='hi'))]
serializers = {V1: ProtobufSerializer(V1, sr, conf), V2: ProtobufSerializer(V2, sr, conf)}
for cls, msg in rows:
    producer.produce(topic, value=serializers[cls](msg, ctx))
if producer.flush(30) != 0:
    raise SystemExit('records not delivered')
out['versions'] = sr.get_versions(subject)
out['types'] = [sr.get_version(subject, v).schema.schema_type for v in out['versions']]
out['ids'] = [sr.get_version(subject, v).schema_id for v in out['versions']]
try:
    sr.register_schema(subject, Schema(base64.b64encode(v3_fdp.SerializeToString()).decode('ascii'), 'PROTOBUF'))
    out['v3'] = 'registered'
except SchemaRegistryError as e:
    out['v3'] = {'status': e.http_status_code, 'error_code': e.error_code, 'message': e.error_message}

consumer = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'sr-protobuf', 'enable.auto.commit': False})
consumer.assign([TopicPartition(topic, 0, 0)])
deserializer = ProtobufDeserializer(V2, conf, sr)
records = []
deadline = time.time() + 30
while len(records) < len(rows) and time.time() < deadline:
    m = consumer.poll(0.5)
    if m is None or m.error():
        continue
    raw = m.value()
    msg = deserializer(raw, ctx)
    records.append({'schema_id': int.from_bytes(raw[1:5], 'big'), 'value': json_format.MessageToDict(msg, preserving_proto_field_name=True)})
consumer.close()
out['records'] = records
print(json.dumps(out))
