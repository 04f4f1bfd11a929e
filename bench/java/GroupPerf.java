// Consumer-group workloads for the bench (workload p, bench/lib/groups.ts), the
// same on every broker:
//
//   java -cp '.cache/java/lib/*:.cache/bench-java' GroupPerf consume <bootstrap> <topic> <records> <classic|consumer>
//     One consumer in a fresh group (group.protocol as given) subscribes and
//     polls until <records> records arrived.
//     RESULT records=<n> bytes=<value bytes> ms=<subscribe to last record> firstMs=<subscribe to first record>
//
//   ... GroupPerf rebalance <bootstrap> <topic> <partitions> <classic|consumer>
//     Consumer A owns every partition of the topic; consumer B then joins the
//     group. The clock runs from B's subscribe() until A and B together own
//     every partition, each some, none twice (both keep polling meanwhile).
//     RESULT rebalanceMs=<ms> a=<A's partitions> b=<B's partitions>
//
//   ... GroupPerf share <bootstrap> <topic> <records> <consumers>
//     The topic holds <records> records. A fresh share group gets
//     share.auto.offset.reset=earliest (a group config, IncrementalAlterConfigs),
//     then <consumers> KafkaShareConsumers of it (explicit acknowledgement)
//     subscribe and acknowledge every delivered record ACCEPT one by one. The
//     clock runs from their start until every offset was accepted once.
//     RESULT records=<distinct offsets> deliveries=<records delivered> ms=<ms> perConsumer=<n,n,...>
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class GroupPerf {
  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: GroupPerf consume|rebalance|share <bootstrap> <topic> <n> <protocol|consumers>");
      System.exit(2);
    }
    switch (args[0]) {
      case "consume": consume(args[1], args[2], Long.parseLong(args[3]), args[4]); break;
      case "rebalance": rebalance(args[1], args[2], Integer.parseInt(args[3]), args[4]); break;
      case "share": share(args[1], args[2], Long.parseLong(args[3]), Integer.parseInt(args[4])); break;
      default: System.err.println("unknown mode " + args[0]); System.exit(2);
    }
  }

  static Properties consumerProps(String bootstrap, String group, String protocol) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    return p;
  }

  static void consume(String bootstrap, String topic, long want, String protocol) {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps(bootstrap, "bench-" + UUID.randomUUID(), protocol))) {
      long t0 = System.nanoTime();
      c.subscribe(List.of(topic));
      long n = 0, bytes = 0, first = -1, last = t0;
      long deadline = System.currentTimeMillis() + 300_000;
      while (n < want && System.currentTimeMillis() < deadline) {
        ConsumerRecords<byte[], byte[]> rs = c.poll(Duration.ofMillis(200));
        if (rs.isEmpty()) continue;
        long now = System.nanoTime();
        if (first < 0) first = now;
        last = now;
        for (ConsumerRecord<byte[], byte[]> r : rs) {
          n++;
          if (r.value() != null) bytes += r.value().length;
        }
      }
      System.out.printf("RESULT records=%d bytes=%d ms=%.1f firstMs=%.1f%n", n, bytes, (last - t0) / 1e6, first < 0 ? -1.0 : (first - t0) / 1e6);
    }
  }

  /** A consumer that polls on its own thread and publishes what it owns. */
  static final class Member implements Runnable {
    final KafkaConsumer<byte[], byte[]> c;
    final String topic;
    volatile Set<TopicPartition> owned = Set.of();
    final AtomicBoolean stop = new AtomicBoolean();
    Member(Properties p, String topic) {
      this.c = new KafkaConsumer<>(p);
      this.topic = topic;
    }
    public void run() {
      c.subscribe(List.of(topic));
      while (!stop.get()) {
        c.poll(Duration.ofMillis(50));
        owned = new HashSet<>(c.assignment());
      }
      c.close(Duration.ofSeconds(5));
    }
  }

  static void rebalance(String bootstrap, String topic, int partitions, String protocol) throws Exception {
    String group = "bench-" + UUID.randomUUID();
    Member a = new Member(consumerProps(bootstrap, group, protocol), topic);
    Thread ta = new Thread(a);
    ta.start();
    long deadline = System.currentTimeMillis() + 120_000;
    while (a.owned.size() < partitions && System.currentTimeMillis() < deadline) Thread.sleep(5);
    if (a.owned.size() < partitions) throw new IllegalStateException("A owns " + a.owned.size() + " of " + partitions);
    Thread.sleep(500); // A settled
    Member b = new Member(consumerProps(bootstrap, group, protocol), topic);
    long t0 = System.nanoTime();
    Thread tb = new Thread(b);
    tb.start();
    long ms = -1;
    while (System.currentTimeMillis() < deadline) {
      Set<TopicPartition> sa = a.owned, sb = b.owned;
      if (!sa.isEmpty() && !sb.isEmpty() && sa.size() + sb.size() == partitions) {
        Set<TopicPartition> all = new HashSet<>(sa);
        all.addAll(sb);
        if (all.size() == partitions) {
          ms = (System.nanoTime() - t0) / 1_000_000;
          System.out.printf("RESULT rebalanceMs=%d a=%d b=%d%n", ms, sa.size(), sb.size());
          break;
        }
      }
      Thread.sleep(1);
    }
    a.stop.set(true);
    b.stop.set(true);
    ta.join();
    tb.join();
    if (ms < 0) throw new IllegalStateException("the group did not split the partitions in time");
  }

  static void share(String bootstrap, String topic, long want, int consumers) throws Exception {
    String group = "bench-share-" + UUID.randomUUID();
    // the records are there already: the share group starts at the log start, not its end (the default)
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(ap)) {
      ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
      admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
    }
    ConcurrentHashMap<Long, Boolean> accepted = new ConcurrentHashMap<>();
    AtomicLong deliveries = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    long[] perConsumer = new long[consumers];
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < consumers; i++) {
      final int idx = i;
      Thread t = new Thread(() -> {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put("share.acknowledgement.mode", "explicit");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p)) {
          c.subscribe(List.of(topic));
          while (!stop.get()) {
            ConsumerRecords<byte[], byte[]> rs = c.poll(Duration.ofMillis(100));
            for (ConsumerRecord<byte[], byte[]> r : rs) {
              c.acknowledge(r, AcknowledgeType.ACCEPT);
              deliveries.incrementAndGet();
              perConsumer[idx]++;
              accepted.put(r.offset(), Boolean.TRUE);
            }
          }
          c.commitSync(Duration.ofSeconds(10));
        }
      });
      t.start();
      threads.add(t);
    }
    // done when every offset was accepted once; given up after 30 s without progress
    long lastSize = -1, lastChange = System.currentTimeMillis();
    while (accepted.size() < want && System.currentTimeMillis() - lastChange < 30_000) {
      if (accepted.size() != lastSize) {
        lastSize = accepted.size();
        lastChange = System.currentTimeMillis();
      }
      Thread.sleep(2);
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    stop.set(true);
    for (Thread t : threads) t.join();
    StringBuilder per = new StringBuilder();
    for (int i = 0; i < consumers; i++) per.append(i == 0 ? "" : ",").append(perConsumer[i]);
    System.out.printf("RESULT records=%d deliveries=%d ms=%d perConsumer=%s%n", accepted.size(), deliveries.get(), ms, per);
  }
}
