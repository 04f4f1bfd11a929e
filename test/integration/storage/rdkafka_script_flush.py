"""An idempotent librdkafka (confluent-kafka) producer sends TOTAL records to
partition 0 of TOPIC, 5 in flight, while the Redis fence script is flushed
(SCRIPT FLUSH over a raw socket to REDIS_HOST:REDIS_PORT) before every EVERY
records, the first time before the partition's first batch, so appends meet NOSCRIPT with records in flight. Prints one JSON
summary line on stdout.

usage: rdkafka_script_flush.py BOOTSTRAP TOPIC REDIS_HOST REDIS_PORT TOTAL EVERY
"""
import json
import socket
import sys

from confluent_kafka import Producer

bootstrap, topic, rhost, rport, total, every = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])


def script_flush():
    with socket.create_connection((rhost, rport)) as s:
        s.sendall(b'*2\r\n$6\r\nSCRIPT\r\n$5\r\nFLUSH\r\n')
        reply = s.recv(64)
        if not reply.startswith(b'+OK'):
            raise RuntimeError(f'SCRIPT FLUSH: {reply!r}')


acked, errors = [], []


def report(err, msg):
    if err is not None:
        errors.append(str(err))
    else:
        acked.append(msg.value().decode())


p = Producer({
    'bootstrap.servers': bootstrap,
    'enable.idempotence': True,
    'acks': 'all',
    'linger.ms': 2,
    'batch.num.messages': 3,
    'max.in.flight.requests.per.connection': 5,
    'retry.backoff.ms': 50,
    'message.timeout.ms': 60000,
})
# Warm up: the broker's append connection loads the script when it opens (first append).
p.produce(topic + '-warm', value=b'w', on_delivery=lambda err, msg: None)
p.flush(30)
acked.clear()
flushes = 0
for i in range(total):
    # The first flush comes before the partition's first batch (no `next` stored yet), the others
    # land among batches in flight (the loop is paced).
    if i % every == 0:
        script_flush()
        flushes += 1
    p.produce(topic, value=str(i).encode(), partition=0, on_delivery=report)
    p.poll(0.003)
remaining = p.flush(90)
print(json.dumps({'acked': acked, 'errors': errors, 'flushes': flushes, 'unflushed': remaining}))
