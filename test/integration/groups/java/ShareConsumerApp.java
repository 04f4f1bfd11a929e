// A Kafka 4.x KafkaShareConsumer for the share-group tests: subscribes to one
// topic in one share group, acknowledges each record explicitly as `--mode`
// says, commits after each poll, and prints one JSON line per event:
//   {"event":"ready"}                                   after the first poll returned
//   {"event":"record","offset":N,"partition":P,"deliveryCount":D,"value":"...","ack":"ACCEPT"}
// Modes: accept (every record), release-first (RELEASE on delivery 1, ACCEPT
// later), reject-odd (REJECT odd offsets, ACCEPT even), release-always
// (RELEASE every delivery), hold (acknowledge nothing, keep polling).
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;

public class ShareConsumerApp {
  public static void main(String[] args) {
    String bootstrap = args[0], topic = args[1], group = args[2], mode = args[3];
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("share.acknowledgement.mode", "explicit");
    p.put("client.id", "share-" + mode + "-" + ProcessHandle.current().pid());
    try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
      c.subscribe(List.of(topic));
      boolean ready = false;
      while (true) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(500));
        if (!ready) { System.out.println("{\"event\":\"ready\"}"); System.out.flush(); ready = true; }
        if (recs.isEmpty()) continue;
        for (ConsumerRecord<String, String> r : recs) {
          short dc = r.deliveryCount().orElse((short) -1);
          AcknowledgeType ack;
          switch (mode) {
            case "release-first": ack = dc <= 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT; break;
            case "reject-odd": ack = r.offset() % 2 == 1 ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT; break;
            case "release-always": ack = AcknowledgeType.RELEASE; break;
            case "hold": ack = null; break;
            default: ack = AcknowledgeType.ACCEPT;
          }
          if (ack != null) c.acknowledge(r, ack);
          System.out.println("{\"event\":\"record\",\"partition\":" + r.partition() + ",\"offset\":" + r.offset() + ",\"deliveryCount\":" + dc
              + ",\"value\":\"" + r.value() + "\",\"ack\":\"" + (ack == null ? "NONE" : ack.name()) + "\"}");
        }
        System.out.flush();
        if (!mode.equals("hold")) c.commitSync();
      }
    }
  }
}
