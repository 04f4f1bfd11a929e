// A Java 4.x consumer with group.protocol=consumer subscribed with a
// SubscriptionPattern: the regular expression is sent to the broker
// (ConsumerGroupHeartbeat v1 SubscribedTopicRegex) and resolved there.
// Prints one JSON line each time it has read more records:
// {"n": <records read>, "topics": [<topics read from>]}.
// Args: bootstrap group regex
import java.time.Duration;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.serialization.StringDeserializer;

public class RegexConsumer {
  public static void main(String[] args) {
    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("group.id", args[1]);
    p.put("group.protocol", "consumer");
    p.put("auto.offset.reset", "earliest");
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      c.subscribe(new SubscriptionPattern(args[2]));
      TreeSet<String> seen = new TreeSet<>();
      TreeSet<String> topics = new TreeSet<>();
      while (true) {
        int before = seen.size();
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          seen.add(r.topic() + "-" + r.partition() + ":" + r.offset());
          topics.add(r.topic());
        }
        if (seen.size() != before) {
          StringBuilder t = new StringBuilder();
          for (String x : topics) t.append(t.length() == 0 ? "" : ",").append('"').append(x).append('"');
          System.out.println("{\"n\": " + seen.size() + ", \"topics\": [" + t + "]}");
          System.out.flush();
        }
      }
    }
  }
}
