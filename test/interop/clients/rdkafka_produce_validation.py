"""Produce validation seen by confluent-kafka-python (librdkafka 2.x).

Reads {"bootstrap": ..., "suffix": ...} on stdin, runs each scenario and
prints one JSON object on stdout:

  compacted:   librdkafka's test 0011: 100 records (every 10th keyless) to a
               compacted topic, once in one batch (then the records failed
               only for sharing the batch are sent again), once one record
               per batch (batch.size=1); per-record delivery results, then
               every stored record read back.
  timestamps:  CreateTime 9e15, then now (separate batches) on a default topic, 9e15 on a topic
               created with message.timestamp.after.max.ms=Long.MAX; then the
               default topic's after.max.ms raised with
               incremental_alter_configs and 9e15 produced again; the topics'
               message.timestamp.* as describe_configs shows them.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic

LONG_MAX = "9223372036854775807"


def create(admin, topic, config):
    for f in admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1, config=config)]).values():
        f.result(30)


def produce_all(bootstrap, topic, messages, conf=None, separately=False):
    """messages: dicts with key/value/timestamp; returns one result per message, in order.
    One batch for all (linger), unless separately: a flush after each message."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 500, "batch.num.messages": 1000, "retries": 3,
                  "enable.idempotence": False, "acks": "all", **(conf or {})})
    results = [None] * len(messages)

    def report(i):
        def cb(err, msg):
            results[i] = {"error": err.name() if err else None, "code": err.code() if err else 0,
                          "offset": None if err else msg.offset()}
        return cb

    for i, m in enumerate(messages):
        kw = {"partition": 0, "on_delivery": report(i)}
        if m.get("timestamp") is not None:
            kw["timestamp"] = m["timestamp"]
        p.produce(topic, key=m.get("key"), value=m.get("value"), **kw)
        if separately:
            p.flush(60)
    p.flush(60)
    return results


def read_all(bootstrap, topic, expected):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-" + topic, "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    out = []
    deadline = time.time() + 30
    while len(out) < expected and time.time() < deadline:
        m = c.poll(0.5)
        if m is None or m.error():
            continue
        out.append({"offset": m.offset(), "key": m.key().decode() if m.key() is not None else None,
                    "value": m.value().decode(), "ts": m.timestamp()[1]})
    c.close()
    return out


def described(admin, topic):
    res = ConfigResource(ConfigResource.Type.TOPIC, topic)
    entries = admin.describe_configs([res])[res].result(30)
    return {k: {"value": e.value, "default": e.is_default} for k, e in entries.items() if k.startswith("message.timestamp.")}


def main():
    cfg = json.load(sys.stdin)
    bootstrap, suffix = cfg["bootstrap"], cfg["suffix"]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    out = {}

    one, single = "compacted-one-" + suffix, "compacted-single-" + suffix
    create(admin, one, {"cleanup.policy": "compact"})
    create(admin, single, {"cleanup.policy": "compact"})
    msgs = [{"key": None if i % 10 == 0 else ("k%d" % i).encode(), "value": ("v%d" % i).encode()} for i in range(100)]
    batch = produce_all(bootstrap, one, msgs)
    again = [i for i, r in enumerate(batch) if r["error"] == "_INVALID_DIFFERENT_RECORD"]
    resent = produce_all(bootstrap, one, [msgs[i] for i in again])
    out["compacted"] = {
        "one_batch": batch, "resent": dict(zip(again, resent)), "read_one": read_all(bootstrap, one, len(again)),
        "per_record": produce_all(bootstrap, single, msgs, {"batch.size": 1}), "read_single": read_all(bootstrap, single, 90),
    }

    plain, wide = "ts-default-" + suffix, "ts-wide-" + suffix
    create(admin, plain, {})
    create(admin, wide, {"message.timestamp.after.max.ms": LONG_MAX})
    now = int(time.time() * 1000)
    far = 9 * 10 ** 15
    out["timestamps"] = {
        "now": now,
        "default": produce_all(bootstrap, plain, [{"value": b"far", "timestamp": far}, {"value": b"now", "timestamp": now}], separately=True),
        "wide": produce_all(bootstrap, wide, [{"value": b"far", "timestamp": far}]),
        "describe_default": described(admin, plain),
        "describe_wide": described(admin, wide),
    }
    res = ConfigResource(ConfigResource.Type.TOPIC, plain, incremental_configs=[
        ConfigEntry("message.timestamp.after.max.ms", LONG_MAX, incremental_operation=AlterConfigOpType.SET)])
    admin.incremental_alter_configs([res])[res].result(30)
    out["timestamps"]["after_alter"] = produce_all(bootstrap, plain, [{"value": b"far2", "timestamp": far}])
    out["timestamps"]["read_default"] = read_all(bootstrap, plain, 2)
    out["timestamps"]["read_wide"] = read_all(bootstrap, wide, 1)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
