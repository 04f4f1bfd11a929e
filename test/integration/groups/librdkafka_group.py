"""librdkafka (confluent-kafka) consumer group: consume part of a topic, commit
with metadata, close; a second consumer in the same group resumes from the
committed offsets. Prints one JSON summary line on stdout.

usage: librdkafka_group.py BOOTSTRAP TOPIC GROUP FIRST_BATCH TOTAL
"""
import json
import sys
import time

from confluent_kafka import Consumer, TopicPartition

bootstrap, topic, group, first_batch, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])


def consumer(name):
    c = Consumer({
        'bootstrap.servers': bootstrap,
        'group.id': group,
        'client.id': name,
        'enable.auto.commit': False,
        'auto.offset.reset': 'earliest',
        'session.timeout.ms': 10000,
        'partition.assignment.strategy': 'cooperative-sticky',
    })
    c.subscribe([topic])
    return c


epochs = {}


def consume(c, n, deadline_s=60):
    out = []
    deadline = time.time() + deadline_s
    while len(out) < n and time.time() < deadline:
        for m in c.consume(num_messages=min(100, n - len(out)), timeout=1.0):
            if m.error():
                raise RuntimeError(str(m.error()))
            out.append((m.partition(), m.offset(), m.value().decode()))
            epochs[m.partition()] = m.leader_epoch()
    return out


# ---- phase 1: consume FIRST_BATCH records, commit exactly what was consumed
a = consumer('rdk-a')
got_a = consume(a, first_batch)
nxt = {}
for p, o, _ in got_a:
    nxt[p] = max(nxt.get(p, 0), o + 1)
sent_epochs = {p: epochs.get(p) for p in nxt}
a.commit(offsets=[TopicPartition(topic, p, o, metadata=f'rdk-meta-{p}', leader_epoch=sent_epochs[p]) for p, o in nxt.items()], asynchronous=False)
committed_a = {tp.partition: {'offset': tp.offset, 'metadata': tp.metadata, 'leader_epoch': tp.leader_epoch}
               for tp in a.committed([TopicPartition(topic, p) for p in sorted(nxt)], timeout=10)}
a.close()

# ---- phase 2: a restarted member of the same group resumes from the committed offsets
b = consumer('rdk-b')
got_b = consume(b, total - len(got_a))
first_b = {}
for p, o, _ in got_b:
    first_b.setdefault(p, o)
end = {}
for p, o, _ in got_b:
    end[p] = max(end.get(p, 0), o + 1)
b.commit(offsets=[TopicPartition(topic, p, o) for p, o in end.items()], asynchronous=False)
parts = sorted(set(list(end) + list(nxt)))
committed_b = {tp.partition: tp.offset for tp in b.committed([TopicPartition(topic, p) for p in parts], timeout=10)}
b.close()

print(json.dumps({
    'a': [[p, o, v] for p, o, v in got_a],
    'b': [[p, o, v] for p, o, v in got_b],
    'committed_a': committed_a,
    'sent_epochs': sent_epochs,
    'first_b': first_b,
    'committed_b': committed_b,
}))
