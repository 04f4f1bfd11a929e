"""confluent-kafka's SchemaRegistryClient, AvroSerializer and AvroDeserializer
against Runnel's built-in Schema Registry. Prints one JSON summary line.

usage: avro_serde.py REGISTRY_URL BOOTSTRAP TOPIC produce|consume EXPECTED_RECORDS

produce: the serializer registers v1 and an evolved v2 (a new optional field)
         of the topic's value subject while producing records with each; an
         incompatible v3 (a new field without a default) is registered
         directly and must fail; then every record is read back.
consume: only reads every record back (a fresh client: schemas by id).
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext

url, bootstrap, topic, phase, expected = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
subject = topic + '-value'
sr = SchemaRegistryClient({'url': url})

FIELDS = [{'name': 'id', 'type': 'long'}, {'name': 'amount', 'type': 'double'}]
V1 = {'type': 'record', 'name': 'Payment', 'namespace': 'com.acme', 'fields': FIELDS}
V2 = {**V1, 'fields': FIELDS + [{'name': 'note', 'type': ['null', 'string'], 'default': None}]}
V3 = {**V1, 'fields': FIELDS + [{'name': 'currency', 'type': 'string'}]}

out = {}
if phase == 'produce':
    producer = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 5})
    ctx = SerializationContext(topic, MessageField.VALUE)
    for schema, rows in ((V1, [{'id': 1, 'amount': 1.5}, {'id': 2, 'amount': 2.25}]),
                         (V2, [{'id': 3, 'amount': 3.0, 'note': 'hi'}, {'id': 4, 'amount': 4.5, 'note': None}])):
        serializer = AvroSerializer(sr, json.dumps(schema))  # auto.register.schemas: registers on first use
        for row in rows:
            producer.produce(topic, value=serializer(row, ctx))
    if producer.flush(30) != 0:
        raise SystemExit('records not delivered')
    out['versions'] = sr.get_versions(subject)
    out['ids'] = [sr.get_version(subject, v).schema_id for v in out['versions']]
    out['latest'] = sr.get_latest_version(subject).version
    out['v3_compatible'] = sr.test_compatibility(subject, Schema(json.dumps(V3), 'AVRO'))
    try:
        sr.register_schema(subject, Schema(json.dumps(V3), 'AVRO'))
        out['v3'] = 'registered'
    except SchemaRegistryError as e:
        out['v3'] = {'status': e.http_status_code, 'error_code': e.error_code, 'message': e.error_message}
    try:
        sr.register_schema(subject, Schema('{"type": "record", "name": "Broken", "fields": [{"name": "x", "type": "nope"}]}', 'AVRO'))
        out['malformed'] = 'registered'
    except SchemaRegistryError as e:
        out['malformed'] = {'status': e.http_status_code, 'error_code': e.error_code}

consumer = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'sr-' + phase, 'enable.auto.commit': False})
consumer.assign([TopicPartition(topic, 0, 0)])
deserializer = AvroDeserializer(sr)  # no reader schema: each record is read with the schema of its id
records = []
deadline = time.time() + 30
while len(records) < expected and time.time() < deadline:
    m = consumer.poll(0.5)
    if m is None or m.error():
        continue
    raw = m.value()
    value = deserializer(raw, SerializationContext(topic, MessageField.VALUE))
    records.append({'magic': raw[0], 'schema_id': int.from_bytes(raw[1:5], 'big'), 'value': value})
consumer.close()
out['records'] = records
print(json.dumps(out))
