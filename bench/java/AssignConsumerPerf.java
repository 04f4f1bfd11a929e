// Consumer throughput without a consumer group: assign() every partition of a
// topic, seek to the beginning, poll until N records arrived. Kafka's own
// ConsumerPerformance always subscribe()s with a group, which needs the group
// coordinator APIs (FindCoordinator/JoinGroup/SyncGroup); this tool reads the
// same way on any broker, so the consumer numbers compare like with like.
//
//   java -cp '.cache/java/lib/*:.cache/bench-java' AssignConsumerPerf <bootstrap> <topic> <numRecords> [key=value | @client.properties ...]
//
// @<file> loads a client properties file (security.protocol, ssl.*, sasl.*: the
// same file ProducerPerformance gets with --command-config); later arguments win.
//
// Prints one line: RESULT records=<n> bytes=<value bytes> ms=<elapsed> partitions=<p>,
// then E2E p50=<ms> p99=<ms> p999=<ms>: receive time minus each record's timestamp,
// over the records after the first tenth (for a consumer at the tail: end-to-end latency).
// The clock starts right before the first poll (after metadata) and stops at
// the poll that delivered the last record, like ConsumerPerformance's fetch time.
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class AssignConsumerPerf {
  public static void main(String[] args) throws IOException {
    if (args.length < 3) {
      System.err.println("usage: AssignConsumerPerf <bootstrap> <topic> <numRecords> [key=value ...]");
      System.exit(2);
    }
    String topic = args[1];
    long want = Long.parseLong(args[2]);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    for (int i = 3; i < args.length; i++) {
      if (args[i].startsWith("@")) {
        try (InputStream in = new FileInputStream(args[i].substring(1))) {
          p.load(in);
        }
        continue;
      }
      int eq = args[i].indexOf('=');
      p.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    long idleLimitNs = 30_000_000_000L;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo pi : c.partitionsFor(topic, Duration.ofSeconds(30))) tps.add(new TopicPartition(topic, pi.partition()));
      c.assign(tps);
      c.seekToBeginning(tps);
      long t0 = System.nanoTime();
      long last = t0;
      long count = 0;
      long bytes = 0;
      // end-to-end latency (receive time - the record's CreateTime, one clock: same machine) of the
      // records after the first tenth (ProducerPerformance's warm-up); meaningful for a consumer at the tail
      long[] lat = new long[(int) Math.min(want, 5_000_000L)];
      int nl = 0;
      while (count < want) {
        ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(100));
        long now = System.nanoTime();
        if (recs.isEmpty()) {
          if (now - last > idleLimitNs) break;
          continue;
        }
        long wall = System.currentTimeMillis();
        for (ConsumerRecord<byte[], byte[]> r : recs) {
          count++;
          bytes += r.serializedValueSize();
          if (count > want / 10 && nl < lat.length) lat[nl++] = wall - r.timestamp();
        }
        last = now;
      }
      System.out.printf("RESULT records=%d bytes=%d ms=%.3f partitions=%d%n", count, bytes, (last - t0) / 1e6, tps.size());
      if (nl > 0) {
        java.util.Arrays.sort(lat, 0, nl);
        System.out.printf("E2E p50=%d p99=%d p999=%d%n", lat[(int) (nl * 0.50)], lat[Math.min(nl - 1, (int) (nl * 0.99))], lat[Math.min(nl - 1, (int) (nl * 0.999))]);
      }
      if (count < want) System.exit(3);
    }
  }
}
