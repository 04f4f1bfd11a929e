"""librdkafka (confluent-kafka) with SASL/OAUTHBEARER, OIDC client credentials
(sasl.oauthbearer.method=oidc): librdkafka fetches its token from the token
endpoint itself. Produces the given values to one topic, then reads the topic
from the beginning (partition 0, no group). Prints one JSON line on stdout:
{"consumed": [...]}.

usage: librdkafka_oauth.py BOOTSTRAP TOKEN_URL CLIENT_ID CLIENT_SECRET TOPIC VALUE...
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

bootstrap, token_url, client_id, secret, topic = sys.argv[1:6]
values = sys.argv[6:]
auth = {
    'bootstrap.servers': bootstrap,
    'security.protocol': 'SASL_PLAINTEXT',
    'sasl.mechanism': 'OAUTHBEARER',
    'sasl.oauthbearer.method': 'oidc',
    'sasl.oauthbearer.client.id': client_id,
    'sasl.oauthbearer.client.secret': secret,
    'sasl.oauthbearer.token.endpoint.url': token_url,
}

errors = []
p = Producer({**auth, 'error_cb': lambda e: errors.append(str(e))})
for v in values:
    p.produce(topic, v.encode())
if p.flush(15) != 0:
    sys.exit('produce did not complete: %s' % errors)

c = Consumer({**auth, 'group.id': 'unused', 'enable.auto.commit': False})
c.assign([TopicPartition(topic, 0, 0)])
consumed = []
deadline = time.time() + 15
while time.time() < deadline and len(consumed) < len(values):
    m = c.poll(0.5)
    if m is None:
        continue
    if m.error():
        sys.exit('consume error: %s' % m.error())
    consumed.append(m.value().decode())
c.close()
print(json.dumps({'consumed': consumed}))
