"""confluent-kafka's JSONSerializer and JSONDeserializer against Runnel's
built-in Schema Registry. Prints one JSON summary line.

usage: json_serde.py REGISTRY_URL BOOTSTRAP TOPIC

The serializer registers v1 (a closed content model) and an evolved v2 (a new
optional property) of the topic's value subject while producing records with
each; an incompatible v3 (a new required property) must be refused; then the
deserializer (no schema of its own: each record's by its id) reads every record.
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

url, bootstrap, topic = sys.argv[1], sys.argv[2], sys.argv[3]
subject = topic + '-value'
sr = SchemaRegistryClient({'url': url})

PROPS = {'id': {'type': 'integer'}, 'amount': {'type': 'number'}}
V1 = {'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'Payment', 'type': 'object',
      'properties': PROPS, 'required': ['id', 'amount'], 'additionalProperties': False}
V2 = {**V1, 'properties': {**PROPS, 'note': {'type': ['string', 'null']}}}
V3 = {**V2, 'properties': {**V2['properties'], 'currency': {'type': 'string'}}, 'required': ['id', 'amount', 'currency']}

out = {}
producer = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 5})
ctx = SerializationContext(topic, MessageField.VALUE)
rows = [(V1, {'id': 1, 'amount': 1.5}), (V1, {'id': 2, 'amount': 2}), (V2, {'id': 3, 'amount': 3.25, 'note': 'hi'})]
for schema, row in rows:
    producer.produce(topic, value=JSONSerializer(json.dumps(schema), sr)(row, ctx))
if producer.flush(30) != 0:
    raise SystemExit('records not delivered')
out['versions'] = sr.get_versions(subject)
out['types'] = [sr.get_version(subject, v).schema.schema_type for v in out['versions']]
out['ids'] = [sr.get_version(subject, v).schema_id for v in out['versions']]
try:
    sr.register_schema(subject, Schema(json.dumps(V3), 'JSON'))
    out['v3'] = 'registered'
except SchemaRegistryError as e:
    out['v3'] = {'status': e.http_status_code, 'error_code': e.error_code}
try:
    sr.register_schema(subject + '-bad', Schema('{"type": "strin"}', 'JSON'))
    out['malformed'] = 'registered'
except SchemaRegistryError as e:
    out['malformed'] = {'status': e.http_status_code, 'error_code': e.error_code}

consumer = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'sr-json', 'enable.auto.commit': False})
consumer.assign([TopicPartition(topic, 0, 0)])
deserializer = JSONDeserializer(None, schema_registry_client=sr)
records = []
deadline = time.time() + 30
while len(records) < len(rows) and time.time() < deadline:
    m = consumer.poll(0.5)
    if m is None or m.error():
        continue
    raw = m.value()
    records.append({'schema_id': int.from_bytes(raw[1:5], 'big'), 'value': deserializer(raw, ctx)})
consumer.close()
out['records'] = records
print(json.dumps(out))
