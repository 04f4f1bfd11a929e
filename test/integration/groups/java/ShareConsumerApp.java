// A Kafka 4.x KafkaShareConsumer for the share-group tests: subscribes to one
// topic in one share group, acknowledges each record explicitly as `--mode`
// says, commits after each poll, and prints one JSON line per record:
//   {"event":"record","partition":P,"offset":N,"deliveryCount":D,"value":"v7","ack":"ACCEPT"}
// Records whose value starts with "warm" are warm-up records (the test sends
// them until the group reads one, so that its share-partition exists): always
// accepted, printed as "event":"warm".
// Modes for the other records ("v<n>"): accept (every record), release-first
// (RELEASE on delivery 1, ACCEPT later), reject-odd (REJECT odd n, ACCEPT even),
// release-always (RELEASE every delivery), hold (acknowledge nothing and stop
// polling once such records came: the member stays alive, heartbeating, until
// it is killed). An optional fifth argument sets max.poll.records.
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.errors.WakeupException;

public class ShareConsumerApp {
  public static void main(String[] args) throws InterruptedException {
    String bootstrap = args[0], topic = args[1], group = args[2], mode = args[3];
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("share.acknowledgement.mode", "explicit");
    p.put("client.id", "share-" + mode + "-" + ProcessHandle.current().pid());
    if (args.length > 4) p.put("max.poll.records", args[4]);
    KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
    // SIGTERM: leave the group and close the share sessions (the main loop ends on the wakeup).
    Thread main = Thread.currentThread();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      c.wakeup();
      try { main.join(10_000); } catch (InterruptedException e) { }
    }));
    try {
      c.subscribe(List.of(topic));
      while (true) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(500));
        if (recs.isEmpty()) continue;
        boolean held = false;
        for (ConsumerRecord<String, String> r : recs) {
          short dc = r.deliveryCount().orElse((short) -1);
          boolean warm = r.value().startsWith("warm");
          AcknowledgeType ack;
          if (warm) ack = AcknowledgeType.ACCEPT;
          else {
            int n = Integer.parseInt(r.value().substring(1));
            switch (mode) {
              case "release-first": ack = dc <= 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT; break;
              case "reject-odd": ack = n % 2 == 1 ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT; break;
              case "release-always": ack = AcknowledgeType.RELEASE; break;
              case "hold": ack = null; held = true; break;
              default: ack = AcknowledgeType.ACCEPT;
            }
          }
          if (ack != null) c.acknowledge(r, ack);
          System.out.println("{\"event\":\"" + (warm ? "warm" : "record") + "\",\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
              + ",\"deliveryCount\":" + dc + ",\"value\":\"" + r.value() + "\",\"ack\":\"" + (ack == null ? "NONE" : ack.name()) + "\"}");
        }
        System.out.flush();
        if (held) while (true) Thread.sleep(60_000);
        c.commitSync();
      }
    } catch (WakeupException e) {
      // shutting down
    } finally {
      c.close();
    }
  }
}
