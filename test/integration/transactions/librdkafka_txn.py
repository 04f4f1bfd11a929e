"""librdkafka (confluent-kafka) transactions: a transactional producer commits
one transaction and aborts another on TOPIC (2 partitions); then librdkafka
consumers read TOPIC from the beginning with isolation.level read_committed
and read_uncommitted (assign mode, no group) until end of partition.
Prints one JSON summary line on stdout.

usage: librdkafka_txn.py BOOTSTRAP TOPIC
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition, KafkaError

bootstrap, topic = sys.argv[1], sys.argv[2]
COMMITTED = [f'committed-{i}' for i in range(10)]
ABORTED = [f'aborted-{i}' for i in range(10)]
COMMITTED2 = [f'committed2-{i}' for i in range(5)]

p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': 'rdk-txn-1', 'transaction.timeout.ms': 30000})
p.init_transactions(30)


def txn(values, commit):
    p.begin_transaction()
    for i, v in enumerate(values):
        p.produce(topic, value=v.encode(), key=v.encode(), partition=i % 2)
    if commit:
        p.commit_transaction(30)
    else:
        # Flush first so the aborted records really are in the log (not just dropped client-side).
        p.flush(30)
        p.abort_transaction(30)


txn(COMMITTED, True)
txn(ABORTED, False)
txn(COMMITTED2, True)


def read(isolation):
    c = Consumer({
        'bootstrap.servers': bootstrap,
        'group.id': f'rdk-txn-reader-{isolation}',  # required by the client; assign mode, nothing committed
        'isolation.level': isolation,
        'enable.auto.commit': False,
        'enable.partition.eof': True,
    })
    c.assign([TopicPartition(topic, part, 0) for part in (0, 1)])
    out, eof = [], set()
    deadline = time.time() + 60
    while len(eof) < 2 and time.time() < deadline:
        m = c.poll(1.0)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                eof.add(m.partition())
                continue
            raise RuntimeError(str(m.error()))
        out.append(m.value().decode())
    c.close()
    if len(eof) < 2:
        raise RuntimeError(f'{isolation}: no EOF on both partitions, got {out}')
    return out


print(json.dumps({
    'committed': COMMITTED + COMMITTED2, 'aborted': ABORTED,
    'read_committed': read('read_committed'), 'read_uncommitted': read('read_uncommitted'),
}))
