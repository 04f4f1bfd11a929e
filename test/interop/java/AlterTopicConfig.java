// Usage: AlterTopicConfig <bootstrap> <topic> <step> [<step> ...]
//   step: SET|DELETE|APPEND|SUBTRACT <key> <value>   one IncrementalAlterConfigs call;
//                                                    prints OK or the error's class and message
//         EXPECT <key> <value>                       polls DescribeConfigs (30 s) until the
//                                                    topic's value is <value>; prints SEEN or
//                                                    TIMEOUT <last value>
// The steps run in order in one JVM (exit code 0 either way, 2 on usage errors).
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

public class AlterTopicConfig {
  public static void main(String[] a) throws Exception {
    if (a.length < 5 || (a.length - 2) % 3 != 0) { System.err.println("usage: AlterTopicConfig bootstrap topic (op key value)..."); System.exit(2); }
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, a[0]);
    try (Admin admin = Admin.create(p)) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, a[1]);
      for (int i = 2; i < a.length; i += 3) {
        String op = a[i], key = a[i + 1], value = a[i + 2];
        if (op.equals("EXPECT")) {
          System.out.println(expect(admin, r, key, value));
          continue;
        }
        AlterConfigOp alter = new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.valueOf(op));
        try {
          admin.incrementalAlterConfigs(Map.of(r, List.of(alter))).all().get();
          System.out.println("OK");
        } catch (ExecutionException e) {
          System.out.println(e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
        }
      }
    }
  }

  /** Kafka applies config changes asynchronously: describe until the value shows. */
  static String expect(Admin admin, ConfigResource r, String key, String value) throws Exception {
    long until = System.currentTimeMillis() + 30_000;
    String last = null;
    while (System.currentTimeMillis() < until) {
      Config c = admin.describeConfigs(List.of(r)).all().get().get(r);
      ConfigEntry e = c.get(key);
      last = e == null ? null : e.value();
      if (value.equals(last)) return "SEEN";
      Thread.sleep(200);
    }
    return "TIMEOUT " + last;
  }
}
