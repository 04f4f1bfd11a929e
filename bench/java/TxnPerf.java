// Transactional produce + read_committed end-to-end latency for the bench's
// transactions workload (j), on Kafka and Runnel alike.
//
//   java -cp '.cache/java/lib/*:.cache/bench-java' TxnPerf <bootstrap> <topic> <records> <warmupRecords> <recordSize>
//        <txnMs> <latencyRate> <latencyRecords> [producer key=value ...]
//
// Phase 1 (throughput): one transactional producer (transactional.id
// bench-txn-<random>, so acks=all and idempotence) sends <warmupRecords> +
// <records> records of <recordSize> bytes to partition 0 as fast as it can and
// commits every <txnMs> ms: beginTransaction, send() until <txnMs> have passed
// since the transaction began, commitTransaction() (which flushes and waits for
// EndTxn), and again. These are the semantics of ProducerPerformance
// --transaction-duration-ms and of a Kafka Streams exactly_once_v2 task
// (commit.interval.ms=100): send() only queues, so a fast producer queues up
// to buffer.memory in the 100 ms and the commit then waits for all of it; the
// real transaction length is printed as txnAvgMs. The rate counts the records of the transactions that
// began after the warm-up records, from the first such beginTransaction to the
// last commit's return: the rate of committed records.
//
// Phase 2 (read_committed latency): two consumers assigned to partition 0 at
// its end, one with isolation.level=read_committed and one with
// read_uncommitted, poll in their own threads while the producer sends
// <latencyRecords> records at <latencyRate> records/s (open loop: record i is
// due at start + i/rate; sends pause while a commit runs and then catch up),
// committing every <txnMs> ms. Each value starts with System.nanoTime() at its
// send() call (same JVM, so one clock); each consumer records receipt - send.
// read_committed sees a record only once its transaction's commit marker is
// written (the LSO passes it), so it waits for the rest of the transaction
// (about txnMs/2 on average) plus the commit; read_uncommitted shows the
// transport alone.
//
// Prints:
//   THROUGHPUT records=<n> bytes=<value bytes> ms=<..> commits=<n> txnAvgMs=<beginTransaction .. commit returned> commitAvgMs=<..> commitP99Ms=<..> errors=<n>
//   LATENCY isolation=<read_committed|read_uncommitted> records=<received> p50=<ms> p99=<ms> p999=<ms> avg=<ms> max=<ms>
//   LATPRODUCE records=<sent> commits=<n> rate=<achieved records/s>
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.nio.ByteBuffer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class TxnPerf {
  public static void main(String[] args) throws Exception {
    if (args.length < 8) {
      System.err.println("usage: TxnPerf <bootstrap> <topic> <records> <warmupRecords> <recordSize> <txnMs> <latencyRate> <latencyRecords> [key=value ...]");
      System.exit(2);
    }
    String bootstrap = args[0];
    String topic = args[1];
    long records = Long.parseLong(args[2]);
    long warmup = Long.parseLong(args[3]);
    int recordSize = Math.max(8, Integer.parseInt(args[4]));
    long txnMs = Long.parseLong(args[5]);
    int latencyRate = Integer.parseInt(args[6]);
    int latencyRecords = Integer.parseInt(args[7]);

    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-txn-" + UUID.randomUUID());
    for (int i = 8; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      pp.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    // ProducerPerformance's payload: random upper-case letters.
    byte[] payload = new byte[recordSize];
    Random rnd = new Random(42);
    for (int i = 0; i < recordSize; i++) payload[i] = (byte) ('A' + rnd.nextInt(26));
    AtomicLong errors = new AtomicLong();

    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
      producer.initTransactions();

      // ---- phase 1: throughput, commit every txnMs
      long sent = 0, measured = 0, commits = 0;
      long measureStart = -1;
      List<Double> commitMs = new ArrayList<>();
      double txnMsSum = 0;
      while (sent < warmup + records) {
        long begin = System.nanoTime();
        if (measureStart < 0 && sent >= warmup) measureStart = begin;
        boolean counted = measureStart >= 0;
        producer.beginTransaction();
        long n = 0;
        // A warm-up transaction ends at the last warm-up record: measured transactions hold measured records only.
        long limit = counted ? warmup + records : warmup;
        while (sent < limit && System.nanoTime() - begin < txnMs * 1_000_000L) {
          producer.send(new ProducerRecord<>(topic, 0, null, payload), (md, e) -> { if (e != null) errors.incrementAndGet(); });
          sent++;
          n++;
        }
        long c0 = System.nanoTime();
        producer.commitTransaction();
        long c1 = System.nanoTime();
        if (counted) {
          measured += n;
          commits++;
          commitMs.add((c1 - c0) / 1e6);
          txnMsSum += (c1 - begin) / 1e6;
        }
      }
      long measureEnd = System.nanoTime();
      if (measureStart < 0) measureStart = measureEnd;
      double ms = (measureEnd - measureStart) / 1e6;
      Collections.sort(commitMs);
      double commitAvg = commitMs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
      System.out.printf("THROUGHPUT records=%d bytes=%d ms=%.1f commits=%d txnAvgMs=%.2f commitAvgMs=%.2f commitP99Ms=%.2f errors=%d%n",
          measured, measured * recordSize, ms, commits, commits > 0 ? txnMsSum / commits : Double.NaN, commitAvg, pct(commitMs, 0.99), errors.get());
      System.out.flush();

      // ---- phase 2: read_committed (and read_uncommitted) end-to-end latency
      if (latencyRecords <= 0) return;
      TopicPartition tp = new TopicPartition(topic, 0);
      String[] isolations = { "read_committed", "read_uncommitted" };
      List<List<Double>> lat = new ArrayList<>();
      CountDownLatch ready = new CountDownLatch(isolations.length);
      stop = false;
      List<Thread> threads = new ArrayList<>();
      for (String iso : isolations) {
        List<Double> out = Collections.synchronizedList(new ArrayList<>());
        lat.add(out);
        Thread t = new Thread(() -> consume(bootstrap, tp, iso, latencyRecords, out, ready), "consumer-" + iso);
        t.start();
        threads.add(t);
      }
      ready.await();
      long lsent = 0, lcommits = 0;
      long t0 = System.nanoTime();
      long intervalNs = 1_000_000_000L / Math.max(1, latencyRate);
      while (lsent < latencyRecords) {
        long begin = System.nanoTime();
        producer.beginTransaction();
        while (lsent < latencyRecords && System.nanoTime() - begin < txnMs * 1_000_000L) {
          long due = t0 + lsent * intervalNs;
          long now;
          while ((now = System.nanoTime()) < due) {
            long left = due - now;
            if (left > 200_000) Thread.sleep(0, 100_000); else Thread.onSpinWait();
          }
          byte[] v = payload.clone();
          ByteBuffer.wrap(v).putLong(0, System.nanoTime());
          producer.send(new ProducerRecord<>(topic, 0, null, v), (md, e) -> { if (e != null) errors.incrementAndGet(); });
          lsent++;
        }
        producer.commitTransaction();
        lcommits++;
      }
      double lsec = (System.nanoTime() - t0) / 1e9;
      System.out.printf("LATPRODUCE records=%d commits=%d rate=%.1f errors=%d%n", lsent, lcommits, lsent / lsec, errors.get());
      long deadline = System.currentTimeMillis() + 30_000;
      for (Thread t : threads) t.join(Math.max(1, deadline - System.currentTimeMillis()));
      stop = true;
      for (Thread t : threads) t.join(10_000);
      for (int i = 0; i < isolations.length; i++) {
        List<Double> l;
        synchronized (lat.get(i)) { l = new ArrayList<>(lat.get(i)); }
        Collections.sort(l);
        double avg = l.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        System.out.printf("LATENCY isolation=%s records=%d p50=%.2f p99=%.2f p999=%.2f avg=%.2f max=%.2f%n",
            isolations[i], l.size(), pct(l, 0.5), pct(l, 0.99), pct(l, 0.999), avg, l.isEmpty() ? Double.NaN : l.get(l.size() - 1));
      }
      System.out.flush();
    }
  }

  static volatile boolean stop = false;

  static void consume(String bootstrap, TopicPartition tp, String isolation, int expect, List<Double> out, CountDownLatch ready) {
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "500");
    cp.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "1");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp)) {
      c.assign(Collections.singletonList(tp));
      c.seekToEnd(Collections.singletonList(tp));
      c.position(tp); // resolve the end offset before the producer starts
      ready.countDown();
      int got = 0;
      while (got < expect && !stop) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
          long now = System.nanoTime();
          byte[] v = r.value();
          if (v == null || v.length < 8) continue;
          out.add((now - ByteBuffer.wrap(v).getLong(0)) / 1e6);
          got++;
        }
      }
    } catch (Exception e) {
      System.err.println("consumer " + isolation + " failed: " + e);
      e.printStackTrace();
      ready.countDown();
    }
  }

  static double pct(List<Double> sorted, double q) {
    if (sorted.isEmpty()) return Double.NaN;
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }
}
