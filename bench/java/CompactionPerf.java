// Keyed produce + compaction watch for the bench's compaction workload (i).
// ProducerPerformance cannot set keys; this tool writes `records` records over
// `keys` keys round-robin (record i has key i % keys, so every key gets
// records/keys updates), then (watchMs > 0) re-reads the partition(s) from the
// beginning again and again until the log is compacted. alterSegmentMs > 0: before
// watching, set the topic's segment.ms to it (IncrementalAlterConfigs), so a topic
// produced with a long segment.ms (nothing cleanable yet) becomes cleanable at once.
//
//   java -cp '.cache/java/lib/*:.cache/bench-java' CompactionPerf <bootstrap> <topic> <records> <keys> <valueSize>
//        <watchMs> <stallMs> <rollMs> <alterSegmentMs> [producer key=value ...]
//
// Value = the record's sequence number (12 ASCII digits) + random upper-case
// letters up to valueSize, so a pass can check that each key kept its newest value.
// While watching, one more update of key 0 is sent every rollMs: segments are
// rolled on append, so a topic that stopped receiving records would keep its
// last (active, never cleaned) segment for ever; the trickle rolls it like a live topic.
//
// Prints:
//   PRODUCED records=<n> bytes=<value bytes> ms=<first send .. last ack> endEpochMs=<wall clock at the last ack> errors=<n>
//   ALTERED epochMs=<wall clock when the broker acknowledged segment.ms=alterSegmentMs>
//   PASS endEpochMs=<wall clock at the end of the pass> records=<n> keys=<distinct keys> latestOk=<bool> ms=<pass duration>
//   RESULT compacted=<bool> reason=<target|stall|timeout>
// The log counts as compacted once a pass reads at most keys + 2 records (the
// newest value of every key plus up to two roll markers in the active segment).
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.Collections;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class CompactionPerf {
  static final int SEQ_DIGITS = 12;

  public static void main(String[] args) throws Exception {
    if (args.length < 9) {
      System.err.println("usage: CompactionPerf <bootstrap> <topic> <records> <keys> <valueSize> <watchMs> <stallMs> <rollMs> <alterSegmentMs> [key=value ...]");
      System.exit(2);
    }
    String bootstrap = args[0];
    String topic = args[1];
    long records = Long.parseLong(args[2]);
    int keys = Integer.parseInt(args[3]);
    int valueSize = Math.max(SEQ_DIGITS, Integer.parseInt(args[4]));
    long watchMs = Long.parseLong(args[5]);
    long stallMs = Long.parseLong(args[6]);
    long rollMs = Long.parseLong(args[7]);
    long alterSegmentMs = Long.parseLong(args[8]);

    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    for (int i = 9; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      pp.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    byte[][] keyBytes = new byte[keys][];
    for (int k = 0; k < keys; k++) keyBytes[k] = String.format("key-%08d", k).getBytes(StandardCharsets.US_ASCII);
    byte[] filler = new byte[valueSize];
    Random rnd = new Random(42);
    for (int i = 0; i < valueSize; i++) filler[i] = (byte) ('A' + rnd.nextInt(26));
    // expected[k]: sequence number of the newest value written for key k.
    long[] expected = new long[keys];
    Arrays.fill(expected, -1);

    AtomicLong errors = new AtomicLong();
    try (KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(pp)) {
      prod.partitionsFor(topic); // metadata before the clock starts
      long t0 = System.nanoTime();
      for (long i = 0; i < records; i++) {
        int k = (int) (i % keys);
        prod.send(new ProducerRecord<>(topic, keyBytes[k], value(filler, i)), (md, e) -> {
          if (e != null && errors.incrementAndGet() == 1) e.printStackTrace();
        });
        expected[k] = i;
      }
      prod.flush();
      long t1 = System.nanoTime();
      System.out.printf("PRODUCED records=%d bytes=%d ms=%.3f endEpochMs=%d errors=%d%n", records, records * valueSize, (t1 - t0) / 1e6, System.currentTimeMillis(), errors.get());
      System.out.flush();
      if (watchMs <= 0) return;
      if (alterSegmentMs > 0) {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
          AlterConfigOp op = new AlterConfigOp(new ConfigEntry("segment.ms", String.valueOf(alterSegmentMs)), AlterConfigOp.OpType.SET);
          admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), Collections.singletonList(op))).all().get();
        }
        System.out.printf("ALTERED epochMs=%d%n", System.currentTimeMillis());
        System.out.flush();
      }

      Properties cp = new Properties();
      cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp)) {
        List<TopicPartition> tps = new ArrayList<>();
        for (PartitionInfo pi : c.partitionsFor(topic, Duration.ofSeconds(30))) tps.add(new TopicPartition(topic, pi.partition()));
        c.assign(tps);
        long start = System.currentTimeMillis();
        long lastRoll = 0; // the first pass starts with a roll marker
        long lastShrink = start;
        long best = Long.MAX_VALUE;
        long marker = records;
        String reason = "timeout";
        boolean compacted = false;
        while (System.currentTimeMillis() - start < watchMs) {
          if (rollMs > 0 && System.currentTimeMillis() - lastRoll >= rollMs) {
            prod.send(new ProducerRecord<>(topic, keyBytes[0], value(filler, marker)));
            prod.flush();
            expected[0] = marker++;
            lastRoll = System.currentTimeMillis();
          }
          long p0 = System.nanoTime();
          long[] seen = new long[keys];
          Arrays.fill(seen, -1);
          long n = pass(c, tps, seen);
          long now = System.currentTimeMillis();
          int distinct = 0;
          boolean latestOk = true;
          for (int k = 0; k < keys; k++) {
            if (seen[k] >= 0) distinct++;
            if (seen[k] != expected[k]) latestOk = false;
          }
          System.out.printf("PASS endEpochMs=%d records=%d keys=%d latestOk=%b ms=%.3f%n", now, n, distinct, latestOk, (System.nanoTime() - p0) / 1e6);
          System.out.flush();
          if (n < best) {
            best = n;
            lastShrink = now;
          }
          if (n <= keys + 2) {
            compacted = true;
            reason = "target";
            break;
          }
          if (now - lastShrink >= stallMs) {
            reason = "stall";
            break;
          }
          Thread.sleep(100);
        }
        System.out.printf("RESULT compacted=%b reason=%s%n", compacted, reason);
      }
    }
  }

  static byte[] value(byte[] filler, long seq) {
    byte[] v = filler.clone();
    String s = String.format("%0" + SEQ_DIGITS + "d", seq);
    for (int i = 0; i < SEQ_DIGITS; i++) v[i] = (byte) s.charAt(i);
    return v;
  }

  /** Reads every partition from its first offset to its end offset at the start of the pass; seen[k] = newest sequence number of key k. */
  static long pass(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> tps, long[] seen) {
    c.seekToBeginning(tps);
    Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
    long n = 0;
    long deadline = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < deadline) {
      boolean done = true;
      for (TopicPartition tp : tps) if (c.position(tp) < end.get(tp)) done = false;
      if (done) break;
      for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
        if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) continue;
        n++;
        String key = new String(r.key(), StandardCharsets.US_ASCII);
        int k = Integer.parseInt(key.substring(4));
        long seq = Long.parseLong(new String(r.value(), 0, SEQ_DIGITS, StandardCharsets.US_ASCII));
        if (k < seen.length) seen[k] = seq;
      }
    }
    return n;
  }
}
