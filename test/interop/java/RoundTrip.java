// Java kafka-clients round trip used by test/interop/java-tools.test.ts.
//
// Usage: java RoundTrip <bootstrap> <topic> <compression.type> <spec.tsv> <out.jsonl> [timeoutMs] [produce-only]
//
// Produces exactly the records described by spec.tsv (one per line:
//   partition \t timestampMs \t key \t value \t headers
// where key/value are base64, or "~" for null, and headers is "" or a
// comma-separated list of base64(utf8 key) ":" base64(value)|"~"), with
// acks=all and the given compression, then consumes the topic's partitions
// from the beginning with assign() + seekToBeginning() (no consumer group) and
// writes JSON lines:
//   {"t":"ack","i":<spec line>,"p":<partition>,"o":<offset>,"ts":<timestamp>}
//   {"t":"rec","p":..,"o":..,"ts":..,"tt":"CreateTime","k":b64|null,"v":b64|null,"h":[[k,v|null],..]}
//   {"t":"done","produced":N,"consumed":M}
// The test compares every byte, timestamp and the per-partition order.
// With "produce-only" as 7th argument the consume phase is skipped.
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class RoundTrip {
    private static final Base64.Decoder DEC = Base64.getDecoder();
    private static final Base64.Encoder ENC = Base64.getEncoder();

    private static byte[] dec(String s) {
        return "~".equals(s) ? null : DEC.decode(s);
    }

    private static String enc(byte[] b) {
        return b == null ? "null" : "\"" + ENC.encodeToString(b) + "\"";
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: RoundTrip <bootstrap> <topic> <compression> <spec.tsv> <out.jsonl> [timeoutMs]");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        String compression = args[2];
        List<String> spec = Files.readAllLines(Paths.get(args[3]), StandardCharsets.UTF_8);
        spec.removeIf(String::isEmpty);
        long timeoutMs = args.length > 5 ? Long.parseLong(args[5]) : 60_000L;
        boolean produceOnly = args.length > 6 && "produce-only".equals(args[6]);

        try (BufferedWriter out = Files.newBufferedWriter(Paths.get(args[4]), StandardCharsets.UTF_8)) {
            int produced = produce(bootstrap, topic, compression, spec, out);
            int consumed = produceOnly ? 0 : consume(bootstrap, topic, spec.size(), timeoutMs, out);
            out.write("{\"t\":\"done\",\"produced\":" + produced + ",\"consumed\":" + consumed + "}\n");
        }
    }

    private static int produce(String bootstrap, String topic, String compression, List<String> spec, BufferedWriter out)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "runnel-roundtrip-producer");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (String line : spec) {
                String[] f = line.split("\t", -1);
                if (f.length != 5) throw new IllegalArgumentException("bad spec line: " + line);
                int partition = Integer.parseInt(f[0]);
                long ts = Long.parseLong(f[1]);
                RecordHeaders headers = new RecordHeaders();
                if (!f[4].isEmpty()) {
                    for (String h : f[4].split(",", -1)) {
                        int c = h.indexOf(':');
                        String key = new String(DEC.decode(h.substring(0, c)), StandardCharsets.UTF_8);
                        headers.add(new RecordHeader(key, dec(h.substring(c + 1))));
                    }
                }
                futures.add(producer.send(new ProducerRecord<>(topic, partition, ts, dec(f[2]), dec(f[3]), headers)));
            }
            producer.flush();
            for (int i = 0; i < futures.size(); i++) {
                RecordMetadata md = futures.get(i).get();
                out.write("{\"t\":\"ack\",\"i\":" + i + ",\"p\":" + md.partition() + ",\"o\":" + md.offset() + ",\"ts\":"
                        + md.timestamp() + "}\n");
            }
        }
        return futures.size();
    }

    private static int consume(String bootstrap, String topic, int expected, long timeoutMs, BufferedWriter out)
            throws IOException {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "runnel-roundtrip-consumer");
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        int count = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : consumer.partitionsFor(topic, Duration.ofMillis(timeoutMs))) {
                tps.add(new TopicPartition(topic, pi.partition()));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.currentTimeMillis() + timeoutMs;
            long extraUntil = Long.MAX_VALUE;
            // Read until we have `expected` records, then keep polling briefly to
            // catch duplicates/extras, or give up at the deadline.
            while (System.currentTimeMillis() < Math.min(deadline, extraUntil)) {
                ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    StringBuilder sb = new StringBuilder(256);
                    sb.append("{\"t\":\"rec\",\"p\":").append(r.partition())
                            .append(",\"o\":").append(r.offset())
                            .append(",\"ts\":").append(r.timestamp())
                            .append(",\"tt\":\"").append(r.timestampType().name).append('"')
                            .append(",\"k\":").append(enc(r.key()))
                            .append(",\"v\":").append(enc(r.value()))
                            .append(",\"h\":[");
                    boolean first = true;
                    for (Header h : r.headers()) {
                        if (!first) sb.append(',');
                        first = false;
                        sb.append('[').append(enc(h.key().getBytes(StandardCharsets.UTF_8))).append(',').append(enc(h.value())).append(']');
                    }
                    sb.append("]}\n");
                    out.write(sb.toString());
                    count++;
                }
                if (count >= expected && extraUntil == Long.MAX_VALUE) {
                    extraUntil = System.currentTimeMillis() + 1000;
                }
            }
        }
        return count;
    }
}
