# Two librdkafka consumers (confluent-kafka) with group.protocol=consumer
# (KIP-848) in one group: polled in turn until every record is read and the
# broker's assignor has split the partitions between them; each message is
# committed synchronously before the next poll. Prints one JSON line:
# records read per consumer, duplicates, the final assignments, and the
# committed offsets read back after both closed.
import json
import sys
import time

from confluent_kafka import Consumer, TopicPartition

bootstrap, topic, group, partitions, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])


def consumer(name):
    return Consumer({
        'bootstrap.servers': bootstrap, 'group.id': group, 'group.protocol': 'consumer', 'client.id': name,
        'auto.offset.reset': 'earliest', 'enable.auto.commit': False,
    })


members = {'a': consumer('a'), 'b': consumer('b')}
for c in members.values():
    c.subscribe([topic])
seen = {}
read = {'a': 0, 'b': 0}
duplicates = 0
assignments = {}
deadline = time.time() + 90
while time.time() < deadline:
    for name, c in members.items():
        m = c.poll(0.2)
        if m is None or m.error():
            continue
        k = (m.partition(), m.offset())
        duplicates += 1 if k in seen else 0
        seen[k] = name
        read[name] += 1
        c.commit(message=m, asynchronous=False)
    assignments = {n: sorted(tp.partition for tp in c.assignment()) for n, c in members.items()}
    split = all(assignments.values()) and sorted(assignments['a'] + assignments['b']) == list(range(partitions))
    if len(seen) >= total and split:
        break
for c in members.values():
    c.close()
check = consumer('check')
committed = {tp.partition: tp.offset for tp in check.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)}
check.close()
print(json.dumps({'read': read, 'unique': len(seen), 'duplicates': duplicates, 'assignments': assignments, 'committed': committed}))
