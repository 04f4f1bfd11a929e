// A Kafka 4.x transactional producer for test/integration/transactions/java-v2.test.ts.
//
// Usage: java TxnV2Producer <bootstrap> <topic> <transactional.id> <group> <transactions> [partitions]
//
// Creates <topic> with [partitions] partitions (default 3; an existing topic is
// used as it is), then runs <transactions> transactions of 2 records per
// partition (values "t<i>-r<j>", record j to partition j % partitions); transaction i aborts
// when i % 3 == 1, else commits. Every third transaction (i % 3 == 0) also
// commits the offset i + 1 of <topic>-0 for <group> with
// sendOffsetsToTransaction. After each end it describes the transactional id
// (Admin.describeTransactions). Then a read_committed consumer reads the
// topic to its end, and the group's committed offsets are listed. JSON lines:
//   {"t":"tv2","enabled":<the producer's TransactionManager.isTransactionV2Enabled()>}
//   {"t":"end","i":i,"commit":b,"pid":P,"epoch":E,"state":"..."}
//   {"t":"rec","p":partition,"v":"t<i>-r<j>"}          (read_committed, in partition order)
//   {"t":"offset","offset":O}                          (the group's offset of <topic>-0, -1 if none)
//   {"t":"done"}
// The transactions v2 flag is read by reflection: the client decides it from
// the broker's finalized `transaction.version` (ApiVersions) and exposes it
// only on its internal TransactionManager.
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class TxnV2Producer {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], txnId = args[2], group = args[3];
    int transactions = Integer.parseInt(args[4]);
    int partitions = args.length > 5 ? Integer.parseInt(args[5]) : 3;
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(ap)) {
      try {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) throw e;
      }

      Properties pp = new Properties();
      pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
      pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
        producer.initTransactions();
        System.out.println("{\"t\":\"tv2\",\"enabled\":" + transactionV2Enabled(producer) + "}");
        for (int i = 0; i < transactions; i++) {
          producer.beginTransaction();
          for (int j = 0; j < 2 * partitions; j++) {
            producer.send(new ProducerRecord<>(topic, j % partitions, "k" + j, "t" + i + "-r" + j));
          }
          if (i % 3 == 0) {
            producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(i + 1)), new ConsumerGroupMetadata(group));
          }
          boolean commit = i % 3 != 1;
          if (commit) producer.commitTransaction(); else producer.abortTransaction();
          TransactionDescription d = admin.describeTransactions(List.of(txnId)).description(txnId).get();
          System.out.println("{\"t\":\"end\",\"i\":" + i + ",\"commit\":" + commit + ",\"pid\":" + d.producerId()
              + ",\"epoch\":" + d.producerEpoch() + ",\"state\":\"" + d.state() + "\"}");
        }
      }

      Properties cp = new Properties();
      cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) tps.add(new TopicPartition(topic, p));
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        // read_committed end offsets are the last stable offsets: every transaction has ended.
        Map<TopicPartition, Long> end = consumer.endOffsets(tps);
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
          boolean done = true;
          for (TopicPartition tp : tps) if (consumer.position(tp) < end.get(tp)) done = false;
          if (done) break;
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            System.out.println("{\"t\":\"rec\",\"p\":" + r.partition() + ",\"v\":\"" + r.value() + "\"}");
          }
        }
      }
      OffsetAndMetadata o = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(new TopicPartition(topic, 0));
      System.out.println("{\"t\":\"offset\",\"offset\":" + (o == null ? -1 : o.offset()) + "}");
    }
    System.out.println("{\"t\":\"done\"}");
  }

  private static boolean transactionV2Enabled(KafkaProducer<?, ?> producer) throws Exception {
    Field f = KafkaProducer.class.getDeclaredField("transactionManager");
    f.setAccessible(true);
    Object tm = f.get(producer);
    return (Boolean) tm.getClass().getMethod("isTransactionV2Enabled").invoke(tm);
  }
}
