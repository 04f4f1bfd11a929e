// An ordinary Kafka Streams word count, written the way the Streams docs do it:
// lines -> words -> groupBy(word) -> count() in a persistent (RocksDB) store
// "counts", backed by the compacted changelog topic <app.id>-counts-changelog
// that Streams creates itself. Nothing in it knows about Runnel.
//
// Usage: WordCountApp <bootstrap> <application.id> <state.dir> <input topic> <output topic> [key=value ...]
// (the key=value pairs are further Streams properties, set last)
//
// Prints one line per event the test waits for (stdout, the log goes to stderr):
//   STATE <old> -> <new>                       Streams state transitions
//   RESTORED <store> <topic-partition> <n>     records restored from the changelog
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;

public final class WordCountApp {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], appId = args[1], stateDir = args[2], input = args[3], output = args[4];

    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    // Short test timings: commit often, emit every update (no record cache),
    // and a session timeout at the brokers' minimum so a restart rejoins fast.
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    // Purge consumed repartition records (DeleteRecords) every second instead
    // of every 30 s, so a short run does it too, as a long-running app would.
    p.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 1000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");

    for (int i = 5; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      p.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }

    StreamsBuilder b = new StreamsBuilder();
    b.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
        .filter((k, word) -> !word.isEmpty())
        .groupBy((k, word) -> word, Grouped.with("words", Serdes.String(), Serdes.String()))
        .count(Materialized.as("counts"))
        .toStream()
        .mapValues(n -> Long.toString(n))
        .to(output, Produced.with(Serdes.String(), Serdes.String()));

    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.setGlobalStateRestoreListener(new StateRestoreListener() {
      @Override public void onRestoreStart(TopicPartition tp, String store, long start, long end) {}
      @Override public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {}
      @Override public void onRestoreEnd(TopicPartition tp, String store, long total) {
        say("RESTORED " + store + " " + tp + " " + total);
      }
    });
    streams.setUncaughtExceptionHandler(e -> {
      e.printStackTrace();
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });

    // Ends on SIGTERM (close, then CLOSED) or when Streams gives up (ERROR: exit 1,
    // so the test sees the failure at once instead of waiting for RUNNING).
    CountDownLatch done = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      streams.close(Duration.ofSeconds(20));
      say("CLOSED");
      done.countDown();
    }));
    streams.setStateListener((now, old) -> {
      say("STATE " + old + " -> " + now);
      if (now == KafkaStreams.State.ERROR) done.countDown();
    });
    streams.start();
    done.await();
    if (streams.state() == KafkaStreams.State.ERROR) System.exit(1);
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
