#!/usr/bin/env python3
"""confluent-kafka (librdkafka 2.x) round-trip driver for librdkafka.test.ts.

Reads one JSON document on stdin:

  {"bootstrap": "127.0.0.1:9092",
   "cases": [{"name": str, "topic": str, "partitions": int,
              "producer": {librdkafka producer config...},
              "messages": [{"partition": int, "key": b64|null, "value": b64|null,
                            "headers": [[str, b64|null], ...] | null, "timestamp": int}]}]}

For every case it creates the topic (AdminClient), produces every message in order
(waiting for all delivery reports), then reads the topic back from OFFSET_BEGINNING
with assign() -- no subscribe(), no commits -- until every partition reaches EOF.

Writes one JSON document on stdout:

  {"lib": [version, librdkafka version],
   "cases": [{"name", "error": str|null,
              "delivered": [{"partition", "offset", "error"}...],   # in produce order
              "watermarks": {partition: [low, high]},
              "records": [{"partition", "offset", "key", "value", "headers",
                           "ts_type", "ts"}...]}]}                   # bytes as base64

Errors are reported per case so one failing codec doesn't hide the others.
"""
import base64
import json
import sys
import time
import traceback

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition, OFFSET_BEGINNING
from confluent_kafka.admin import AdminClient, NewTopic


def b64d(s):
    return None if s is None else base64.b64decode(s)


def b64e(b):
    return None if b is None else base64.b64encode(b).decode('ascii')


TS_TYPES = {
    confluent_kafka.TIMESTAMP_NOT_AVAILABLE: 'none',
    confluent_kafka.TIMESTAMP_CREATE_TIME: 'create',
    confluent_kafka.TIMESTAMP_LOG_APPEND_TIME: 'append',
}


def create_topics(bootstrap, cases):
    admin = AdminClient({'bootstrap.servers': bootstrap})
    futures = admin.create_topics(
        [NewTopic(c['topic'], num_partitions=c['partitions'], replication_factor=1) for c in cases],
        operation_timeout=30, request_timeout=30)
    errors = {}
    for topic, fut in futures.items():
        try:
            fut.result()
        except Exception as e:  # reported per case
            errors[topic] = 'create_topics: %s' % e
    # Wait until every partition has a leader in metadata.
    deadline = time.time() + 30
    pending = {c['topic']: c['partitions'] for c in cases if c['topic'] not in errors}
    while pending and time.time() < deadline:
        md = admin.list_topics(timeout=10)
        for topic, n in list(pending.items()):
            t = md.topics.get(topic)
            if t is not None and t.error is None and len(t.partitions) == n and all(p.leader >= 0 for p in t.partitions.values()):
                del pending[topic]
        if pending:
            time.sleep(0.2)
    for topic in pending:
        errors[topic] = 'topic %s has no leaders after 30s' % topic
    return errors


def produce(bootstrap, case):
    conf = {'bootstrap.servers': bootstrap}
    conf.update(case['producer'])
    p = Producer(conf)
    delivered = [None] * len(case['messages'])

    def cb(idx):
        def on_delivery(err, msg):
            delivered[idx] = {
                'partition': msg.partition(),
                'offset': msg.offset(),
                'error': None if err is None else str(err),
            }
        return on_delivery

    for i, m in enumerate(case['messages']):
        kwargs = {'partition': m['partition'], 'value': b64d(m['value']), 'key': b64d(m['key']),
                  'timestamp': m['timestamp'], 'on_delivery': cb(i)}
        if m.get('headers') is not None:
            kwargs['headers'] = [(k, b64d(v)) for k, v in m['headers']]
        while True:
            try:
                p.produce(case['topic'], **kwargs)
                break
            except BufferError:
                p.poll(0.1)
        p.poll(0)
    remaining = p.flush(60)
    if remaining:
        raise RuntimeError('%d messages not delivered after 60s' % remaining)
    return delivered


def consume(bootstrap, case):
    # librdkafka's KafkaConsumer insists on a group.id even when only assign() is used.
    # It is an inert label here: no subscribe(), no offset commits, no offset store.
    c = Consumer({
        'bootstrap.servers': bootstrap,
        'group.id': 'runnel-interop-unused-' + case['topic'],
        'enable.auto.commit': False,
        'enable.auto.offset.store': False,
        'enable.partition.eof': True,
        'auto.offset.reset': 'error',
        'fetch.wait.max.ms': 100,
    })
    try:
        n = case['partitions']
        watermarks = {}
        for part in range(n):
            watermarks[part] = list(c.get_watermark_offsets(TopicPartition(case['topic'], part), timeout=10))
        c.assign([TopicPartition(case['topic'], part, OFFSET_BEGINNING) for part in range(n)])
        records = []
        at_eof = set()
        deadline = time.time() + 60
        while len(at_eof) < n:
            if time.time() > deadline:
                raise RuntimeError('timed out reading back; at EOF: %s' % sorted(at_eof))
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    # EOF is only final once we've reached the high watermark seen before reading.
                    if m.offset() >= watermarks[m.partition()][1]:
                        at_eof.add(m.partition())
                    continue
                raise RuntimeError('consume error: %s' % m.error())
            ts_type, ts = m.timestamp()
            hdrs = m.headers()
            records.append({
                'partition': m.partition(),
                'offset': m.offset(),
                'key': b64e(m.key()),
                'value': b64e(m.value()),
                'headers': [[k, b64e(v)] for k, v in hdrs] if hdrs is not None else [],
                'ts_type': TS_TYPES.get(ts_type, str(ts_type)),
                'ts': ts,
            })
        return watermarks, records
    finally:
        c.close()


def main():
    spec = json.load(sys.stdin)
    bootstrap = spec['bootstrap']
    cases = spec['cases']
    create_errors = create_topics(bootstrap, cases)
    out = {'lib': [confluent_kafka.version()[0], confluent_kafka.libversion()[0]], 'cases': []}
    for case in cases:
        res = {'name': case['name'], 'error': create_errors.get(case['topic']),
               'delivered': [], 'watermarks': {}, 'records': []}
        if res['error'] is None:
            try:
                res['delivered'] = produce(bootstrap, case)
                res['watermarks'], res['records'] = consume(bootstrap, case)
            except Exception:
                res['error'] = traceback.format_exc()
        out['cases'].append(res)
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
