"""Turns typed columns on for an existing topic with AlterConfigs (confluent-kafka),
for the typed lake columns test. Prints one JSON line.

usage: typed_alter.py REGISTRY_URL BOOTSTRAP TOPIC first|alter

first: creates TOPIC (1 partition, no archive.* config) and produces one Avro record.
alter: (once the caller saw that record in the lake) tries archive.value.schema=always,
       which the broker must refuse, sets archive.value.schema=id (incremental
       AlterConfigs), waits for the archiver to re-read the topic, and produces a
       second record.
"""
import json
import sys
import time

from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

url, bootstrap, topic, phase = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
admin = AdminClient({'bootstrap.servers': bootstrap})
sr = SchemaRegistryClient({'url': url})
ser = AvroSerializer(sr, json.dumps({'type': 'record', 'name': 'Ping', 'fields': [{'name': 'n', 'type': 'long'}]}))
ctx = SerializationContext(topic, MessageField.VALUE)
producer = Producer({'bootstrap.servers': bootstrap})


def alter(value):
    res = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[
        ConfigEntry('archive.value.schema', value, incremental_operation=AlterConfigOpType.SET)])
    try:
        admin.incremental_alter_configs([res])[res].result(30)
        return 'ok'
    except KafkaException as e:
        return e.args[0].name()


out = {}
if phase == 'first':
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    producer.produce(topic, value=ser({'n': 1}, ctx))
else:
    out = {'always': alter('always'), 'id': alter('id')}
    time.sleep(3)  # the archiver re-reads topic configs every 300 ms
    producer.produce(topic, value=ser({'n': 2}, ctx))
producer.flush(30)
print(json.dumps(out))
